/* cli.c — fuzz target: the command lines of `pfbench run` and `pfbench exp`,
 * parsed as cli/main.c parses them, nothing run and no file written (cli/main.c
 * compiled with -DPFB_FUZZ_CLI: its main is pfb_cli_main, and run and exp stop
 * after reading their inputs).
 *
 * The input is the arguments after `pfbench`, separated by NUL or newline; a
 * first argument "exp" parses `pfbench exp`, anything else `pfbench run` (a first
 * "run" is dropped).  The options that name files to read (--config, --preset,
 * --resume, --presets, --fluid, --reference) may name only a file without '/'
 * (relative to the working directory, the repository's root) or one under
 * scenes/, tests/fuzz/ or data/reference with no "..": an input naming anything else (/dev/zero, a FIFO,
 * /proc) is skipped, so that every input reads a few small files. */
#include "fuzz.h"

int pfb_cli_main(int argc, char **argv);

#define MAX_ARGS 256

static int safe_path(const char *v)
{
    if (strstr(v, ".."))
        return 0;
    if (!strchr(v, '/'))
        return 1;
    return !strncmp(v, "scenes/", 7) || !strncmp(v, "tests/fuzz/", 11) || !strncmp(v, "data/reference", 14);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strndup(data, size);
    char *tok[MAX_ARGS];
    int ntok = 0;
    /* the arguments: the pieces between separators (none after a final one) */
    for (char *a = text, *end = text + size; a < end && ntok < MAX_ARGS;) {
        char *sep = a;
        while (sep < end && *sep != '\n' && *sep != '\0')
            sep++;
        *sep = '\0';
        tok[ntok++] = a;
        a = sep + 1;
    }
    int start = 0;
    const char *cmd = "run";
    if (ntok > 0 && (!strcmp(tok[0], "exp") || !strcmp(tok[0], "run")))
        cmd = tok[start++];
    static const char *const path_opts[] = {"--config", "--preset", "--resume", "--presets", "--fluid", "--reference"};
    for (int i = start; i + 1 < ntok; i++)
        for (size_t k = 0; k < sizeof path_opts / sizeof path_opts[0]; k++)
            if (!strcmp(tok[i], path_opts[k]) && !safe_path(tok[i + 1])) {
                free(text);
                return 0;
            }
    char *argv[MAX_ARGS + 3];
    char prog[] = "pfbench", command[8];
    snprintf(command, sizeof command, "%s", cmd);
    int argc = 0;
    argv[argc++] = prog;
    argv[argc++] = command;
    for (int i = start; i < ntok; i++)
        argv[argc++] = tok[i];
    argv[argc] = NULL;
    pfb_cli_main(argc, argv);
    free(text);
    return 0;
}
