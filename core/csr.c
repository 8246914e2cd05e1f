/* csr.c — the compressed-row matrix's storage (csr.h). */
#include "csr.h"

#include <stdlib.h>

int pfb_grow(void **ptr, size_t *cap, size_t need, size_t elem, pfb_err *err)
{
    if (need <= *cap)
        return PFB_OK;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*ptr, nc * elem);
    if (!q)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for %zu elements", need);
    *ptr = q;
    *cap = nc;
    return PFB_OK;
}

int csr_reserve(pfb_csr *A, size_t nz, pfb_err *err)
{
    if (nz <= A->cap_nz)
        return PFB_OK;
    size_t nc = nz + nz / 4 + 64;
    size_t *c = realloc(A->col, nc * sizeof *c);
    if (c)
        A->col = c;
    double *v = realloc(A->val, nc * sizeof *v);
    if (v)
        A->val = v;
    if (!c || !v)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for %zu matrix entries", nz);
    A->cap_nz = nc;
    return PFB_OK;
}
