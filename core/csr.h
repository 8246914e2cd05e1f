/* csr.h — a square sparse matrix in compressed rows, as the pressure Poisson
 * systems of SPH solvers need it (Mao-Yang's eqs. 7-8), and the growing arrays
 * that hold it.  The multigrid (amg.h) and the conjugate gradients (pcg.h)
 * work on it. */
#ifndef PFB_CSR_H
#define PFB_CSR_H

#include <stddef.h>

#include "error.h"

/* The diagonal entry of each row comes first, then the off-diagonal entries in
 * increasing column order. */
typedef struct pfb_csr {
    size_t n;              /* rows (unknowns) */
    size_t *start;         /* n + 1 row offsets */
    size_t *col;
    double *val;
    size_t cap_n, cap_nz;
} pfb_csr;

/* Room for need elements of elem bytes in *ptr (capacity *cap, doubled as needed). */
int pfb_grow(void **ptr, size_t *cap, size_t need, size_t elem, pfb_err *err);

/* Room for nz entries (columns and values) in A. */
int csr_reserve(pfb_csr *A, size_t nz, pfb_err *err);

#endif
