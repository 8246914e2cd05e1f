/* mao_yang.h — pieces of the Mao–Yang back end exposed for tests: the pressure
 * matrix of eqs. 7-8 (solved by core/pcg.h with core/amg.h's preconditioner) and
 * the stress update of eqs. 9-17.  The solver itself is the table
 * pfb_solver_mao_yang. */
#ifndef PFB_MAO_YANG_H
#define PFB_MAO_YANG_H

#include <stddef.h>
#include <stdint.h>

#include "../core/error.h"
#include "../core/pcg.h"
#include "../core/sim.h"

/* Assemble the pressure system of eqs. 7-8 at the current positions (taken as the
 * predicted positions x*): density (eq. 4, wall mirrors included), surface flags,
 * matrix and right-hand side for time step dt.  *A and *b stay owned by the state;
 * rows[u] is the particle index of unknown u. */
int my_pressure_system(void *state, pfb_sim *sim, double dt, const pfb_csr **A, const double **b,
                       const size_t **rows, pfb_err *err);

/* One explicit Euler step of the stress rate (eqs. 9-17) from the velocity
 * gradient (eq. 16) at the current positions and velocities; the stress is the
 * 9-component particle field "stress" (row-major 3x3). */
int my_stress_update(void *state, pfb_sim *sim, double dt, pfb_err *err);

/* The pairs between particles and mirrors at the current positions (made as a
 * step makes them): real particle i's mirrors within h are mj[ms[i] ..
 * ms[i+1]-1], mirror q (of *ng) at x[k][n + q], particle i at x[k][i].  The
 * arrays stay owned by the state. */
int my_mirror_pairs(void *state, pfb_sim *sim, double *h, const uint32_t **ms, const uint32_t **mj, size_t *ng,
                    const double *const **x, pfb_err *err);

/* The systems of the last step's pressure solves, as they were solved (tests):
 * nvec unknowns (the particles with pcg_operator = pairs, whose surface
 * particles' rows are the identity with source 0; else the rows of the stored
 * matrix), count of them not at the surface, eq. 7's source b and the
 * divergence part's b1 (NULL with density_correction = velocity, one solve),
 * the particle of each unknown (rows), and under pcg_stop = density the bounds
 * eta and eta_div on the mean relative density error each solve leaves,
 * dt^2 sum_u |b - A p|_u / count (0 under the residual rule).  The solutions
 * are the particle fields "pressure" and "pressure_div".  Valid until the next
 * step; owned by the state. */
int my_last_system(const void *state, size_t *nvec, size_t *count, const double **b, const double **b1,
                   const size_t **rows, double *eta, double *eta_div);

/* y = A x with the last solve's operator (x, y: nvec unknowns, as above). */
int my_last_apply(void *state, pfb_sim *sim, const double *x, double *y, pfb_err *err);

/* Eq. 8's operator over the pairs (pcg_operator = pairs) at the current
 * positions, made as a step makes it (density, surface flags, mirrors), applied
 * to x: y = A x, both over the particles (a surface particle's row is the
 * identity).  On the same state my_pressure_system's matrix is the same
 * operator on the particles not at the surface. */
int my_pressure_operator(void *state, pfb_sim *sim, double dt, const double *x, double *y, pfb_err *err);

/* The pair rows' level from now on: -1 the scalar rows everywhere (the
 * reference of mao_yang_rows.inc's lanes), or a lane level of core/lanes.h as
 * solver.simd gives it (lanes_level), for the tests.  Eq. 8's product stays
 * in lanes (core/pairop.h), at that level or, for -1, the highest. */
void my_set_rows(void *state, int level);

/* The pair passes' sums at the current positions, velocities and pressure
 * fields, with the rows of `level` (as my_set_rows; the state's level is kept):
 * the density (n values), the non-pressure accelerations (3 n, gravity
 * included) and the pressure accelerations of both pressure fields (6 n: the
 * pressure's, then the divergence pressure's), for the tests. */
int my_rows_sums(void *state, pfb_sim *sim, int level, double *rho, double *acc_v, double *acc_p, pfb_err *err);

#endif
