/* particles.c — structure-of-arrays particle storage with named extra fields. */
#include "particles.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int particles_init(pfb_particles *p, int dim, pfb_err *err)
{
    memset(p, 0, sizeof *p);
    if (dim != 2 && dim != 3)
        return pfb_err_set(err, PFB_EINVAL, "particle dimension %d is invalid; valid: 2 or 3", dim);
    p->dim = dim;
    return PFB_OK;
}

void particles_free(pfb_particles *p)
{
    if (!p)
        return;
    for (int k = 0; k < 3; k++) {
        free(p->x[k]);
        free(p->v[k]);
    }
    free(p->m);
    free(p->id);
    for (size_t f = 0; f < p->nfields; f++)
        free(p->field[f].data);
    memset(p, 0, sizeof *p);
}

static int grow(void **ptr, size_t elem, size_t cap)
{
    void *q = realloc(*ptr, elem * (cap ? cap : 1));
    if (!q)
        return -1;
    *ptr = q;
    return 0;
}

int particles_reserve(pfb_particles *p, size_t cap, pfb_err *err)
{
    if (cap <= p->cap)
        return PFB_OK;
    size_t newcap = p->cap ? p->cap : 64;
    while (newcap < cap)
        newcap *= 2;
    int bad = 0;
    for (int k = 0; k < 3; k++) {
        bad |= grow((void **)&p->x[k], sizeof(double), newcap);
        bad |= grow((void **)&p->v[k], sizeof(double), newcap);
    }
    bad |= grow((void **)&p->m, sizeof(double), newcap);
    bad |= grow((void **)&p->id, sizeof(uint64_t), newcap);
    for (size_t f = 0; f < p->nfields; f++)
        bad |= grow((void **)&p->field[f].data, sizeof(double) * (size_t)p->field[f].ncomp, newcap);
    if (bad)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory growing particle storage to %zu particles",
                           newcap);
    /* new field slots start zeroed */
    for (size_t f = 0; f < p->nfields; f++) {
        size_t nc = (size_t)p->field[f].ncomp;
        memset(p->field[f].data + p->cap * nc, 0, (newcap - p->cap) * nc * sizeof(double));
    }
    p->cap = newcap;
    return PFB_OK;
}

int particles_add(pfb_particles *p, const double x[3], const double v[3], double m, pfb_err *err)
{
    int rc = particles_reserve(p, p->n + 1, err);
    if (rc)
        return rc;
    size_t i = p->n;
    for (int k = 0; k < 3; k++) {
        int live = k < p->dim;
        p->x[k][i] = live ? x[k] : 0.0;
        p->v[k][i] = live ? v[k] : 0.0;
    }
    p->m[i] = m;
    p->id[i] = p->next_id++;
    for (size_t f = 0; f < p->nfields; f++) {
        size_t nc = (size_t)p->field[f].ncomp;
        memset(p->field[f].data + i * nc, 0, nc * sizeof(double));
    }
    p->n++;
    return PFB_OK;
}

int particles_find_field(const pfb_particles *p, const char *name)
{
    for (size_t f = 0; f < p->nfields; f++)
        if (strcmp(p->field[f].name, name) == 0)
            return (int)f;
    return -1;
}

int particles_add_field(pfb_particles *p, const char *name, int ncomp, int *idx, pfb_err *err)
{
    if (ncomp < 1 || ncomp > 9)
        return pfb_err_set(err, PFB_EINVAL, "field '%s' has %d components; valid: 1 to 9", name, ncomp);
    if (strlen(name) == 0 || strlen(name) >= PFB_FIELD_NAME)
        return pfb_err_set(err, PFB_EINVAL, "field name '%s' is invalid; valid: 1 to %d characters",
                           name, PFB_FIELD_NAME - 1);
    if (particles_find_field(p, name) >= 0)
        return pfb_err_set(err, PFB_EINVAL, "field '%s' is already registered", name);
    if (p->nfields >= PFB_MAX_FIELDS)
        return pfb_err_set(err, PFB_EINVAL, "cannot register field '%s': at most %d fields", name,
                           PFB_MAX_FIELDS);
    pfb_field *f = &p->field[p->nfields];
    size_t cap = p->cap ? p->cap : 1;
    f->data = calloc(cap * (size_t)ncomp, sizeof(double));
    if (!f->data)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory registering field '%s'", name);
    strcpy(f->name, name);
    f->ncomp = ncomp;
    if (idx)
        *idx = (int)p->nfields;
    p->nfields++;
    return PFB_OK;
}

/* One 8-byte column: the column at byte offset off of an array of records of
 * `stride` bytes. */
typedef struct {
    unsigned char *base;
    size_t stride, off;
} perm_column;

/* The columns of p in the order permute_all moves them: m, id, v, the fields
 * (but those with bit f of skip), and the positions last.  Returns how many. */
static size_t perm_columns(pfb_particles *p, uint64_t skip, perm_column *col)
{
    size_t nc = 0;
    col[nc++] = (perm_column){(unsigned char *)p->m, sizeof(double), 0};
    col[nc++] = (perm_column){(unsigned char *)p->id, sizeof(uint64_t), 0};
    for (int k = 0; k < 3; k++)
        col[nc++] = (perm_column){(unsigned char *)p->v[k], sizeof(double), 0};
    for (size_t f = 0; f < p->nfields; f++) {
        if ((skip >> f) & 1u)
            continue;
        const size_t stride = sizeof(double) * (size_t)p->field[f].ncomp;
        for (size_t c = 0; c < (size_t)p->field[f].ncomp; c++)
            col[nc++] = (perm_column){(unsigned char *)p->field[f].data, stride, c * sizeof(double)};
    }
    for (int k = 0; k < 3; k++)
        col[nc++] = (perm_column){(unsigned char *)p->x[k], sizeof(double), 0};
    return nc;
}

/* Column c of p gathered by p32 or perm into dst for k in [k0, k1). */
static void gather_column(const perm_column *c, const uint32_t *p32, const size_t *perm, size_t k0, size_t k1,
                          uint64_t *restrict dst)
{
    const unsigned char *base = c->base + c->off;
    const size_t stride = c->stride;
    if (p32)
        for (size_t k = k0; k < k1; k++)
            memcpy(&dst[k], base + (size_t)p32[k] * stride, sizeof *dst);
    else
        for (size_t k = k0; k < k1; k++)
            memcpy(&dst[k], base + perm[k] * stride, sizeof *dst);
}

/* src[k] back into column c for k in [k0, k1). */
static void store_column(const perm_column *c, const uint64_t *restrict src, size_t k0, size_t k1)
{
    unsigned char *base = c->base + c->off;
    const size_t stride = c->stride;
    for (size_t k = k0; k < k1; k++)
        memcpy(base + k * stride, &src[k], sizeof *src);
}

/* Every column of p but the skipped fields' through tmp, by p32 or perm, `group`
 * columns at a time (tmp holds group columns of `ld` >= n words; column g of a
 * group at tmp + g ld).  All groups run in one parallel region (from 16384
 * particles), each thread on one fixed share of k: a group is gathered into
 * tmp, the threads meet, and each copies back the share it gathered, so only
 * the gathers need a barrier.  Plain copies: threads change nothing but the
 * time.  The last group ends with the positions, so on return tmp[d ld + k]
 * (d < group) holds the new x of the last group's columns. */
static void permute_all(pfb_particles *p, const uint32_t *p32, const size_t *perm, uint64_t *tmp, size_t group,
                        size_t ld, uint64_t skip)
{
    const size_t n = p->n;
    perm_column col[8 + PFB_MAX_FIELDS * 9];
    const size_t nc = perm_columns(p, skip, col);
    /* groups aligned to the end (the first one the shortest), so the positions,
     * the last 3 columns, share one when group >= 3 */
    const size_t first = nc % group ? nc % group : group;
#pragma omp parallel if (n >= 16384)
    {
        size_t t = 0, m = 1;
#ifdef _OPENMP
        t = (size_t)omp_get_thread_num();
        m = (size_t)omp_get_num_threads();
#endif
        const size_t k0 = n * t / m, k1 = n * (t + 1) / m;
        for (size_t c0 = 0, c1 = first; c0 < nc; c0 = c1, c1 += group) {
            for (size_t c = c0; c < c1; c++)
                gather_column(&col[c], p32, perm, k0, k1, tmp + (c - c0) * ld);
#pragma omp barrier
            for (size_t c = c0; c < c1; c++)
                store_column(&col[c], tmp + (c - c0) * ld, k0, k1);
        }
    }
}

void particles_permute_with(pfb_particles *p, const uint32_t *perm, uint64_t *tmp, size_t group, size_t ld,
                            uint64_t skip)
{
    permute_all(p, perm, NULL, tmp, group ? group : 1, ld, skip);
}

/* Through one scratch of 8 bytes per particle, allocated and freed here (a
 * sort's own permutation, particles_permute_with, uses the caller's scratch:
 * one allocated here would stay in the resident set after frequent re-sorts). */
int particles_permute(pfb_particles *p, const size_t *perm, pfb_err *err)
{
    const size_t n = p->n;
    uint64_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory reordering %zu particles", p->n);
    permute_all(p, NULL, perm, tmp, 1, n, 0);
    free(tmp);
    return PFB_OK;
}

void particles_remove(pfb_particles *p, size_t i)
{
    size_t last = p->n - 1;
    if (i != last) {
        for (int k = 0; k < 3; k++) {
            p->x[k][i] = p->x[k][last];
            p->v[k][i] = p->v[k][last];
        }
        p->m[i] = p->m[last];
        p->id[i] = p->id[last];
        for (size_t f = 0; f < p->nfields; f++) {
            size_t nc = (size_t)p->field[f].ncomp;
            memcpy(p->field[f].data + i * nc, p->field[f].data + last * nc, nc * sizeof(double));
        }
    }
    p->n--;
}

double particles_total_mass(const pfb_particles *p)
{
    double s = 0.0;
    for (size_t i = 0; i < p->n; i++)
        s += p->m[i];
    return s;
}
