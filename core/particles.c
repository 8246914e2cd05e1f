/* particles.c — structure-of-arrays particle storage with named extra fields. */
#include "particles.h"

#include <stdlib.h>
#include <string.h>

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

/* In place, by following the permutation's cycles (a bit per particle marks
 * the slots done): new slot k receives old particle perm[k], every array moved
 * together, so a sort needs no copy of the arrays (the framework re-sorts every
 * frame, and muller at every list rebuild). */
int particles_permute(pfb_particles *p, const size_t *perm, pfb_err *err)
{
    const size_t n = p->n;
    unsigned char *done = calloc(n / 8 + 1, 1);
    if (!done)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory reordering %zu particles", n);
    unsigned char *base[8 + PFB_MAX_FIELDS];
    size_t elem[8 + PFB_MAX_FIELDS], na = 0;
    for (int k = 0; k < 3; k++) {
        base[na] = (unsigned char *)p->x[k];
        elem[na++] = sizeof(double);
        base[na] = (unsigned char *)p->v[k];
        elem[na++] = sizeof(double);
    }
    base[na] = (unsigned char *)p->m;
    elem[na++] = sizeof(double);
    base[na] = (unsigned char *)p->id;
    elem[na++] = sizeof(uint64_t);
    for (size_t f = 0; f < p->nfields; f++) {
        base[na] = (unsigned char *)p->field[f].data;
        elem[na++] = sizeof(double) * (size_t)p->field[f].ncomp;
    }
    unsigned char tmp[8 * 8 + PFB_MAX_FIELDS * 9 * 8]; /* one particle: fields have at most 9 components */
    for (size_t s = 0; s < n; s++) {
        if (done[s / 8] & (1u << (s % 8)))
            continue;
        done[s / 8] |= (unsigned char)(1u << (s % 8));
        if (perm[s] == s)
            continue;
        unsigned char *t = tmp;
        for (size_t a = 0; a < na; t += elem[a], a++)
            memcpy(t, base[a] + s * elem[a], elem[a]);
        size_t k = s;
        for (;;) {
            const size_t nx = perm[k];
            if (nx == s) {
                t = tmp;
                for (size_t a = 0; a < na; t += elem[a], a++)
                    memcpy(base[a] + k * elem[a], t, elem[a]);
                break;
            }
            for (size_t a = 0; a < na; a++)
                memcpy(base[a] + k * elem[a], base[a] + nx * elem[a], elem[a]);
            done[nx / 8] |= (unsigned char)(1u << (nx % 8));
            k = nx;
        }
    }
    free(done);
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
