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

#endif
