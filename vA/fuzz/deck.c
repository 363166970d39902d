/* Job decks (--config=FILE: INI through libinih, sections, deck-relative
 * paths), parsed for every command as `mutirao <command> --config=FILE` does
 * before anything runs. */
#include <stdio.h>
#include "app.h"
#include "core/message.h"
#include "core/options.h"
#include "fuzz_file.h"

static const mu_command *const commands[] = {&mu_cmd_maxsub, &mu_cmd_cg, &mu_cmd_fuzzy,
                                             &mu_cmd_scenarios, &mu_cmd_advect};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char prog[] = "mutirao", cmd[] = "cmd", config[1100];
    snprintf(config, sizeof config, "--config=%s", fz_file(data, size));
    char *argv[] = {prog, cmd, config, NULL};
    for (int i = 0; i < NCOMMANDS; i++) {
        const char *others[NCOMMANDS] = {0};
        for (int j = 0, k = 0; j < NCOMMANDS; j++)
            if (j != i) others[k++] = commands[j]->name;
        mu_opts *opts = NULL;
        mu_opts_parse(commands[i]->name, commands[i]->opts, others, 3, argv, 2, &opts);
        if (opts) mu_opts_free(opts);
        mu_error_clear();
    }
    return 0;
}
