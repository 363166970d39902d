#include "core/summary.h"
#include "core/error.h"
#include "core/output.h"
#include <cjson/cJSON.h>
#include <stdlib.h>

static cJSON *root, *options, *result, *phases, *knobs, *layout, *farm, *memory;

void mu_summary_init(const char *command) {
    mu_summary_free();
    root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "command", command);
    cJSON_AddStringToObject(root, "mutirao_version", MUTIRAO_VERSION);
    options = cJSON_AddObjectToObject(root, "options");
    result = cJSON_AddObjectToObject(root, "result");
    phases = cJSON_AddObjectToObject(root, "phases");
}

static void put(cJSON *obj, const char *key, cJSON *item) {
    if (!obj) {
        cJSON_Delete(item);
        return;
    }
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
    else
        cJSON_AddItemToObject(obj, key, item);
}

void mu_summary_str(const char *key, const char *value) {
    put(root, key, cJSON_CreateString(value));
}
void mu_summary_int(const char *key, int64_t value) {
    put(root, key, cJSON_CreateNumber((double)value));
}
void mu_summary_real(const char *key, double value) {
    put(root, key, cJSON_CreateNumber(value));
}
void mu_summary_bool(const char *key, int value) {
    put(root, key, cJSON_CreateBool(value != 0));
}
void mu_summary_result_int(const char *key, int64_t value) {
    put(result, key, cJSON_CreateNumber((double)value));
}
void mu_summary_result_str(const char *key, const char *value) {
    put(result, key, cJSON_CreateString(value));
}
void mu_summary_result_real(const char *key, double value) {
    put(result, key, cJSON_CreateNumber(value));
}
void mu_summary_result_bool(const char *key, int value) {
    put(result, key, cJSON_CreateBool(value != 0));
}
void mu_summary_result_reals(const char *key, const double *values, int64_t n) {
    cJSON *a = cJSON_CreateArray();
    for (int64_t i = 0; a && i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(values[i]));
    if (a) put(result, key, a);
}

void mu_summary_option(const char *name, const char *value, const char *source) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "value", value);
    cJSON_AddStringToObject(o, "source", source);
    put(options, name, o);
}

void mu_summary_knob(const char *name, const char *value) {
    if (root && !knobs) knobs = cJSON_AddObjectToObject(root, "knobs");
    put(knobs, name, cJSON_CreateString(value));
}

void mu_summary_memory(const char *key, double max, double min, double mean) {
    if (root && !memory) memory = cJSON_AddObjectToObject(root, "memory");
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "max", max);
    cJSON_AddNumberToObject(o, "min", min);
    cJSON_AddNumberToObject(o, "mean", mean);
    put(memory, key, o);
}

void mu_summary_phase(const char *phase, double max_s, double min_s, double mean_s) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "max_s", max_s);
    cJSON_AddNumberToObject(o, "min_s", min_s);
    cJSON_AddNumberToObject(o, "mean_s", mean_s);
    put(phases, phase, o);
}

void mu_summary_rank(int rank, const char *node, int local_rank, int local_size,
                     const char *device) {
    if (root && !layout) layout = cJSON_AddArrayToObject(root, "layout");
    if (!layout) return;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rank", rank);
    cJSON_AddStringToObject(o, "node", node);
    cJSON_AddNumberToObject(o, "local_rank", local_rank);
    cJSON_AddNumberToObject(o, "local_size", local_size);
    cJSON_AddStringToObject(o, "device", device);
    cJSON_AddItemToArray(layout, o);
}

/* Adds v[i * 2 + k] into the array obj[key] (made with n zeros when absent). */
static void add_counts(cJSON *obj, const char *key, const int64_t *v, int k, int n) {
    cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!a || cJSON_GetArraySize(a) != n) {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
        a = cJSON_AddArrayToObject(obj, key);
        for (int i = 0; a && i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(0));
    }
    for (int i = 0; a && i < n; i++) {
        cJSON *e = cJSON_GetArrayItem(a, i);
        cJSON_SetNumberValue(e, e->valuedouble + (double)v[2 * i + k]);
    }
}

void mu_summary_farm(const char *phase, const int64_t *tasks_chunks, int nranks) {
    if (root && !farm) farm = cJSON_AddObjectToObject(root, "task_farm");
    if (!farm) return;
    cJSON *o = cJSON_GetObjectItemCaseSensitive(farm, phase);
    if (!o) o = cJSON_AddObjectToObject(farm, phase);
    if (!o) return;
    add_counts(o, "tasks_by_rank", tasks_chunks, 0, nranks);
    add_counts(o, "chunks_by_rank", tasks_chunks, 1, nranks);
}

int mu_summary_write(const char *path) {
    if (!root) return mu_error("internal: summary not initialised");
    char *text = cJSON_Print(root);
    if (!text) return mu_error("out of memory writing the summary");
    mu_output out;
    int rc = 0;
    MU_TRY_GOTO(mu_output_open(&out, path));
    fputs(text, out.f);
    fputc('\n', out.f);
    rc = mu_output_commit(&out);
done:
    free(text);
    return rc;
}

void mu_summary_free(void) {
    cJSON_Delete(root);
    root = options = result = phases = knobs = layout = farm = memory = NULL;
}
