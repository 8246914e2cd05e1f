/* checkpoint.c — the checkpoint container (checkpoint.h). */
#include "checkpoint.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

#define CKPT_MAGIC "pfbench checkpoint 1\n"

static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

int ckpt_begin(pfb_ckpt_w *w, pfb_err *err)
{
    memset(w, 0, sizeof *w);
    w->f = open_memstream(&w->buf, &w->len);
    if (!w->f)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for a checkpoint");
    fputs(CKPT_MAGIC, w->f);
    return PFB_OK;
}

void ckpt_put(pfb_ckpt_w *w, const char *tag, const void *p, size_t n)
{
    const uint64_t len = n;
    fwrite(tag, 1, 4, w->f);
    fwrite(&len, sizeof len, 1, w->f);
    if (n)
        fwrite(p, 1, n, w->f);
}

void ckpt_put_many(pfb_ckpt_w *w, const char *tag, ...)
{
    va_list ap;
    uint64_t len = 0;
    va_start(ap, tag);
    for (const void *p = va_arg(ap, const void *); p; p = va_arg(ap, const void *))
        len += va_arg(ap, size_t);
    va_end(ap);
    fwrite(tag, 1, 4, w->f);
    fwrite(&len, sizeof len, 1, w->f);
    va_start(ap, tag);
    for (const void *p = va_arg(ap, const void *); p; p = va_arg(ap, const void *)) {
        const size_t n = va_arg(ap, size_t);
        if (n)
            fwrite(p, 1, n, w->f);
    }
    va_end(ap);
}

int ckpt_commit(pfb_ckpt_w *w, const char *path, pfb_err *err)
{
    if (fflush(w->f) || ferror(w->f)) {
        ckpt_abort(w);
        return pfb_err_set(err, PFB_ENOMEM, "out of memory writing the checkpoint '%s'", path);
    }
    const uint64_t h = fnv1a(w->buf, w->len);
    ckpt_put(w, "END ", &h, sizeof h);
    FILE *f = w->f;
    w->f = NULL;
    return output_write_stream(f, &w->buf, &w->len, path, err);
}

void ckpt_abort(pfb_ckpt_w *w)
{
    if (w->f)
        fclose(w->f);
    free(w->buf);
    memset(w, 0, sizeof *w);
}

/* Check r's bytes (r->buf, r->len, r->path set): the magic, the sections'
 * framing up to END and the hash; on success r->pos is at the first section,
 * on failure r is closed. */
static int ckpt_check(pfb_ckpt_r *r, pfb_err *err)
{
    const char *path = r->path;
    const size_t m = strlen(CKPT_MAGIC), tail = 4 + 8 + 8;
    if (r->len < m || memcmp(r->buf, CKPT_MAGIC, m)) {
        ckpt_close(r);
        return pfb_err_set(err, PFB_EINVAL, "'%s' is not a pfbench checkpoint (no '%.20s' line); valid: a "
                           "checkpoint of this version", path, CKPT_MAGIC);
    }
    /* the sections' framing up to END, then the hash of everything before it */
    size_t pos = m;
    for (;;) {
        uint64_t len;
        if (r->len - pos < 12) {
            ckpt_close(r);
            return pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' is truncated (%zu bytes); valid: a complete "
                               "checkpoint", path, pos);
        }
        memcpy(&len, r->buf + pos + 4, sizeof len);
        if (!memcmp(r->buf + pos, "END ", 4)) {
            uint64_t h;
            if (len != sizeof h || r->len != pos + tail) {
                ckpt_close(r);
                return pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' is corrupt (its end); valid: a checkpoint "
                                   "as written", path);
            }
            memcpy(&h, r->buf + pos + 12, sizeof h);
            if (h != fnv1a(r->buf, pos)) {
                ckpt_close(r);
                return pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' is corrupt (its hash does not match its "
                                   "contents); valid: a checkpoint as written", path);
            }
            break;
        }
        if (len > r->len - pos - 12) {
            ckpt_close(r);
            return pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' is truncated (a section of %llu bytes at %zu "
                               "of %zu); valid: a complete checkpoint", path, (unsigned long long)len, pos, r->len);
        }
        pos += 12 + (size_t)len;
    }
    r->pos = m;
    return PFB_OK;
}

int ckpt_open(pfb_ckpt_r *r, const char *path, pfb_err *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    int rc = output_read_file(path, "the checkpoint", &r->buf, &r->len, err);
    if (rc == PFB_EIO) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return pfb_err_set(err, PFB_EINVAL, "%s; valid: the checkpoint an interrupted or checkpointing run left in "
                           "its directory", why);
    }
    if (rc)
        return rc;
    return ckpt_check(r, err);
}

int ckpt_open_mem(pfb_ckpt_r *r, const void *data, size_t len, const char *name, pfb_err *err)
{
    memset(r, 0, sizeof *r);
    r->path = name;
    r->buf = malloc(len ? len : 1);
    if (!r->buf)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory reading the checkpoint '%s'", name);
    if (len)
        memcpy(r->buf, data, len);
    r->len = len;
    return ckpt_check(r, err);
}

int ckpt_get(pfb_ckpt_r *r, const char *tag, const void **p, size_t *n, pfb_err *err)
{
    uint64_t len;
    *p = NULL;
    *n = 0;
    if (r->len - r->pos < 12 || memcmp(r->buf + r->pos, tag, 4))
        return pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' has no section '%.4s' where it should be; valid: a "
                           "checkpoint of this commit", r->path, tag);
    memcpy(&len, r->buf + r->pos + 4, sizeof len);
    *p = r->buf + r->pos + 12;
    *n = (size_t)len;
    r->pos += 12 + (size_t)len;
    return PFB_OK;
}

int ckpt_get_exact(pfb_ckpt_r *r, const char *tag, void *p, size_t n, pfb_err *err)
{
    const void *q = NULL;
    size_t m = 0;
    int rc = ckpt_get(r, tag, &q, &m, err);
    if (rc)
        return rc;
    if (m != n)
        return pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' has %zu bytes in section '%.4s', %zu expected; "
                           "valid: a checkpoint of this commit", r->path, m, tag, n);
    memcpy(p, q, n);
    return PFB_OK;
}

void ckpt_close(pfb_ckpt_r *r)
{
    free(r->buf);
    r->buf = NULL;
    r->len = r->pos = 0;
}
