/* particles.h — particle storage: structure of arrays, double precision.
 *
 * The framework owns position x, velocity v, mass m and a persistent id; a
 * solver may register named extra fields (ncomp doubles per particle), which are
 * stored, reordered and written out together with the core arrays.  In 2D the z
 * arrays exist and stay zero, so output and diagnostics need no special case. */
#ifndef PFB_PARTICLES_H
#define PFB_PARTICLES_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"

#define PFB_MAX_FIELDS 16
#define PFB_FIELD_NAME 32

typedef struct pfb_field {
    char name[PFB_FIELD_NAME];
    int ncomp;
    double *data;          /* ncomp * cap doubles, particle-major: data[i*ncomp + c] */
} pfb_field;

typedef struct pfb_particles {
    int dim;
    size_t n, cap;
    double *x[3];
    double *v[3];
    double *m;
    uint64_t *id;          /* stable identity across reorderings */
    uint64_t next_id;
    size_t nfields;
    pfb_field field[PFB_MAX_FIELDS];
} pfb_particles;

/* Initialise empty storage for dimension dim (2 or 3). */
int particles_init(pfb_particles *p, int dim, pfb_err *err);

/* Free all storage (accepts a zeroed struct). */
void particles_free(pfb_particles *p);

/* Grow capacity to at least cap particles (fields included). */
int particles_reserve(pfb_particles *p, size_t cap, pfb_err *err);

/* Append one particle; x and v have 3 entries (z ignored in 2D). */
int particles_add(pfb_particles *p, const double x[3], const double v[3], double m, pfb_err *err);

/* Register a field of ncomp doubles per particle, zero-filled; returns its index in *idx. */
int particles_add_field(pfb_particles *p, const char *name, int ncomp, int *idx, pfb_err *err);

/* Index of a registered field, or -1. */
int particles_find_field(const pfb_particles *p, const char *name);

/* Reorder all arrays (fields included) so that new slot k holds old particle perm[k]. */
int particles_permute(pfb_particles *p, const size_t *perm, pfb_err *err);

/* The same with a 32-bit permutation (a grid's order), through the caller's
 * scratch tmp of `group` columns of ld >= p->n 64-bit words each, moving that
 * many columns per pass; fields with bit f of skip set are left as they were
 * (for values the caller recomputes before anyone reads them).  The positions
 * move last: on return, with group 3, tmp + d ld holds the new x[d], d < 3. */
void particles_permute_with(pfb_particles *p, const uint32_t *perm, uint64_t *tmp, size_t group, size_t ld,
                            uint64_t skip);

/* Remove particle i by moving the last particle into its slot. */
void particles_remove(pfb_particles *p, size_t i);

/* Total mass, summed in index order. */
double particles_total_mass(const pfb_particles *p);

#endif
