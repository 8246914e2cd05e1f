/* meta.c — fuzz target: run.meta as the experiments read it back (meta_text_get,
 * meta_text_double, exp_status_reason; experiments/common.c).  The input is the
 * file's bytes; every key the experiments read is looked up, into buffers of
 * several sizes, and so is the first line's own key. */
#include "fuzz.h"

#include "../../experiments/experiment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the keys experiments/common.c reads */
    static const char *const keys[] = {"status", "inputs", "dt", "frames_done", "wall_seconds", "t_end",
                                       "length_ref", "v_ref", "gravity", "steps", "substeps", "n_particles", ""};
    static const size_t sizes[] = {1, 2, 16, 128, 320, 4096};
    char out[4096];
    const char *text = (const char *)data;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            meta_text_get(text, size, keys[k], out, sizes[s]);
            if (strlen(out) >= sizes[s])
                abort();
        }
        volatile double v = meta_text_double(text, size, keys[k]);
        (void)v;
    }
    /* the first line's key (up to " = ") */
    size_t e = 0;
    while (e + 3 <= size && text[e] != '\n' && memcmp(text + e, " = ", 3))
        e++;
    if (e + 3 <= size && !memcmp(text + e, " = ", 3)) {
        char *key = fuzz_strndup(data, e);
        meta_text_get(text, size, key, out, sizeof out);
        free(key);
    }
    /* a status line as the CSVs quote it */
    char status[320], reason[320];
    meta_text_get(text, size, "status", status, sizeof status);
    exp_status_reason(status, reason, sizeof reason);
    if (strchr(reason, ',') || strchr(reason, '\n'))
        abort();
    return 0;
}
