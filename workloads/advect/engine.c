#include "advect/engine.h"

int adv_seg_tasks(const uint8_t *cls, int g, int h, int t, adv_task *tasks, int64_t *nt,
                  int32_t *fcells, int64_t *nf) {
    int i = h;
    while (i < t) {
        if (cls[i] == ADV_F || cls[i] == ADV_K) {
            fcells[2 * *nf] = g;
            fcells[2 * *nf + 1] = i;
            ++*nf;
            i++;
            continue;
        }
        int lo = i, root = -1;
        while (i < t && cls[i] != ADV_F && cls[i] != ADV_K) {
            if (cls[i] == ADV_C) root = i;
            i++;
        }
        if (root < 0) return 1;
        tasks[*nt] = (adv_task){g, root, lo, i};
        ++*nt;
    }
    return 0;
}
