/* checkpoint.c — fuzz target: the checkpoint container (ckpt_open_mem, ckpt_get,
 * ckpt_get_exact; core/checkpoint.c) and the parameters a resumed run reads
 * first (run_checkpoint_params_read, core/run.c).
 *
 * The input is the file's bytes.  It is read as it is (a mutated file almost
 * always fails its hash), then, when it ends in an END section whose hash does
 * not match, once more with the hash made right, so that the fuzzer reaches the
 * framing and the sections behind the hash. */
#include "fuzz.h"

#include "../../core/checkpoint.h"
#include "../../core/run.h"

/* FNV-1a 64, as core/checkpoint.c seals a checkpoint. */
static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

/* Every section in turn: by its own tag, by a wrong tag, and into a buffer of
 * the wrong and of the right length. */
static void walk(pfb_ckpt_r *r)
{
    pfb_err err;
    unsigned char small[16];
    for (int guard = 0; guard < 100000; guard++) {
        char tag[4];
        if (r->len - r->pos < 4)
            break;
        memcpy(tag, r->buf + r->pos, 4);
        char wrong[4] = {(char)(tag[0] ^ 1), tag[1], tag[2], tag[3]};
        const void *p;
        size_t n;
        int rc = ckpt_get(r, wrong, &p, &n, &err);
        if (!rc)
            abort(); /* another tag was found */
        fuzz_check_err(rc, &err, "ckpt_get");
        const size_t at = r->pos;
        rc = ckpt_get_exact(r, tag, small, sizeof small, &err);
        fuzz_check_err(rc, &err, "ckpt_get_exact");
        if (rc) {
            r->pos = at;
            rc = ckpt_get(r, tag, &p, &n, &err);
            fuzz_check_err(rc, &err, "ckpt_get");
            if (rc)
                break;
            volatile unsigned char sum = 0;
            for (size_t i = 0; i < n; i++)
                sum ^= ((const unsigned char *)p)[i];
            (void)sum;
        }
    }
}

static void read_one(const uint8_t *data, size_t size)
{
    pfb_ckpt_r r;
    pfb_err err;
    int rc = ckpt_open_mem(&r, data, size, "fuzz.pfb", &err);
    fuzz_check_err(rc, &err, "ckpt_open_mem");
    if (rc)
        return;
    char *text = NULL;
    rc = run_checkpoint_params_read(&r, &text, &err);
    fuzz_check_err(rc, &err, "run_checkpoint_params_read");
    free(text);
    ckpt_close(&r);

    rc = ckpt_open_mem(&r, data, size, "fuzz.pfb", &err);
    fuzz_check_err(rc, &err, "ckpt_open_mem");
    if (rc)
        abort(); /* it opened a moment ago */
    walk(&r);
    ckpt_close(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_one(data, size);
    const size_t tail = 4 + 8 + 8;
    uint64_t len, h;
    if (size < tail || memcmp(data + size - tail, "END ", 4))
        return 0;
    memcpy(&len, data + size - tail + 4, sizeof len);
    memcpy(&h, data + size - 8, sizeof h);
    const uint64_t want = fnv1a(data, size - tail);
    if (len != sizeof h || h == want)
        return 0;
    uint8_t *fixed = malloc(size);
    if (!fixed)
        abort();
    memcpy(fixed, data, size);
    memcpy(fixed + size - 8, &want, sizeof want);
    read_one(fixed, size);
    free(fixed);
    return 0;
}
