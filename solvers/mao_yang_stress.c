/* mao_yang_stress.c — the viscoelastic stress of Mao & Yang (../shared/papers/
 * mao-yang-nonnewtonian.txt, §4.1): the corotational Maxwell rate of eqs. 9-15
 * with the von Mises yield of eq. 17, integrated by explicit Euler (§7), and
 * Monaghan's artificial stress against its tensile instability.  The velocity
 * gradient it reads (eq. 16) and the stress divergence it drives are pair sums
 * of mao_yang.c.
 *
 *   eq. 9   dT/dt = Omega + mu_e / 2 D' - T / lambda ........................ stress_rate
 *   eq. 10  Omega = (T w - w T) / 2, eqs. 11-12 w = grad v - (grad v)^T ...... stress_rate
 *   eq. 13  D' = D - Trace(D) I / 3, eqs. 14-15 D = grad v + (grad v)^T ...... stress_rate
 *   eq. 17  von Mises: T' = T max(0, |T| - gamma) / |T| ...................... stress_rate
 *   T_{n+1} = T_n + dt dT/dt per particle (explicit Euler, §7) ......... my_update_stress
 *   (grad v is eq. 16's, summed with the density in mao_yang.c)
 *
 * Corrections to the printed equations, and why:
 *  - eq. 13 divides the trace by 3 (3D); in 2D the traceless part divides by 2.
 *  - eq. 17 "replaces T with T'" in eq. 9: we take it in the relaxation term,
 *    dT/dt = Omega + mu_e/2 D' - T'/lambda, so below the yield value gamma the
 *    material is elastic (no relaxation) and above it the excess relaxes — the von
 *    Mises behaviour of Goktekin et al. 2004 the paper refers to.  gamma = 0 gives
 *    T' = T, the plain Maxwell model.
 *
 * Choices where the paper is silent:
 *  - Artificial stress against the tensile instability of the elastic stress
 *    (Monaghan 2000; Gray, Monaghan and Swift 2001), epsilon = 0.2 as they
 *    recommend, exponent 4, reference W(D): R_i = -eps sum_k max(t_k, 0) e_k e_k^T
 *    over T_i's principal tensions, pair term m_j f^4 (R_i + R_j) grad W.  With
 *    the paper's velocity correction the six balls blew up at 0.25 s without it;
 *    with the position correction they ran the 1.2 s tried without it, and 2 s
 *    with it (the tested default).  With pressure_form = sum it also acts on
 *    negative pressures (Monaghan 2000's artificial pressure).
 *  - Detached particles carry no stress: where B has an eigenvalue below 0.25 the
 *    particle has no neighbourhood spanning the space (a lone particle, a one-row
 *    thread), eq. 9's continuum strain is undefined, and its stress is set to 0.
 *    Kept, it threw fragments of a bouncing mu_e = 1e5 ball at 9 m/s. */
#include "mao_yang.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "mao_yang_internal.h"

/* Eigenvalues e and eigenvectors (columns of V) of the symmetric part of the dim x
 * dim block of B by cyclic Jacobi rotations, a fixed number of sweeps, so the
 * result is deterministic. */
static void sym_eigen(int dim, const double B[9], double e[3], double V[3][3])
{
    double A[3][3] = {{0}};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            V[a][b] = a == b;
    for (int a = 0; a < dim; a++)
        for (int b = 0; b < dim; b++)
            A[a][b] = 0.5 * (B[3 * a + b] + B[3 * b + a]);
    for (int sweep = 0; sweep < 8; sweep++)
        for (int p = 0; p < dim - 1; p++)
            for (int q = p + 1; q < dim; q++) {
                if (A[p][q] == 0.0)
                    continue;
                double th = 0.5 * atan2(2.0 * A[p][q], A[q][q] - A[p][p]);
                double c = cos(th), sn = sin(th);
                for (int k = 0; k < dim; k++) { /* A := A J */
                    double akp = A[k][p], akq = A[k][q];
                    A[k][p] = c * akp - sn * akq;
                    A[k][q] = sn * akp + c * akq;
                }
                for (int k = 0; k < dim; k++) { /* A := J^T A */
                    double apk = A[p][k], aqk = A[q][k];
                    A[p][k] = c * apk - sn * aqk;
                    A[q][k] = sn * apk + c * aqk;
                }
                for (int k = 0; k < dim; k++) {
                    double vkp = V[k][p], vkq = V[k][q];
                    V[k][p] = c * vkp - sn * vkq;
                    V[k][q] = sn * vkp + c * vkq;
                }
            }
    for (int k = 0; k < 3; k++)
        e[k] = k < dim ? A[k][k] : 0.0;
}

/* Inverse of the symmetric dim x dim block of B with its eigenvalues clamped below
 * at lmin: B^-1 exactly where B is well conditioned (interior, flat surfaces: the
 * eigenvalues are about 1 and 1/2), at most 1/lmin amplification where it is not
 * (a thin jet, a lone particle: eigenvalues near 0, where the exact inverse would
 * multiply particle noise without bound).  Returns the smallest eigenvalue. */
double my_inverse_clamped(int dim, const double B[9], double lmin, double Bi[9])
{
    double e[3], V[3][3];
    sym_eigen(dim, B, e, V);
    memset(Bi, 0, 9 * sizeof *Bi);
    double emin = e[0];
    for (int k = 0; k < dim; k++) {
        emin = fmin(emin, e[k]);
        double inv = 1.0 / fmax(e[k], lmin);
        for (int a = 0; a < dim; a++)
            for (int b = 0; b < dim; b++)
                Bi[3 * a + b] += V[a][k] * inv * V[b][k];
    }
    return emin;
}

/* Monaghan's artificial stress (Monaghan 2000; Gray, Monaghan and Swift 2001) for
 * the elastic stress: R_i = -eps sum_k max(t_k, 0) e_k e_k^T / rho_i^2 over the
 * principal tensions t_k of T_i.  The pair term m_j f_ij^4 (R_i + R_j) grad_i W_ij
 * with f_ij = W(r_ij) / W(D) repels particles that a tension has pulled closer
 * than the spacing, and is negligible at the spacing and beyond. */
void my_artificial_stress(my_state *s, pfb_sim *sim)
{
    const pfb_particles *p = &sim->p;
    const double *restrict T = p->field[s->f_T].data;
    const double *restrict rho = p->field[s->f_rho].data;
#pragma omp parallel for schedule(dynamic, 2048) num_threads(sim_threads(sim)) if (sim_parallel(sim, p->n))
    for (size_t i = 0; i < p->n; i++) {
        double *R = s->rart + 9 * i, e[3], V[3][3];
        memset(R, 0, 9 * sizeof *R);
        sym_eigen(sim->dim, T + 9 * i, e, V);
        for (int k = 0; k < sim->dim; k++) {
            if (!(e[k] > 0))
                continue;
            double c = -s->eps_art * e[k] / (rho[i] * rho[i]);
            for (int a = 0; a < sim->dim; a++)
                for (int b = 0; b < sim->dim; b++)
                    R[3 * a + b] += c * V[a][k] * V[b][k];
        }
    }
}

/* eqs. 9-15 and 17: dT/dt = Omega + mu_e/2 D' - T'/lambda for one particle. */
static void stress_rate(const my_state *s, int dim, const double G[9], const double T[9], double mu_e,
                        double lambda, double rate[9])
{
    double w[9] = {0}, D[9] = {0};
    for (int a = 0; a < dim; a++)
        for (int b = 0; b < dim; b++) {
            w[3 * a + b] = G[3 * b + a] - G[3 * a + b]; /* eq. 12: dv^b/dr^a - dv^a/dr^b */
            D[3 * a + b] = G[3 * b + a] + G[3 * a + b]; /* eq. 15 */
        }
    double tr = 0.0;
    for (int a = 0; a < dim; a++)
        tr += D[4 * a];
    for (int a = 0; a < dim; a++)
        D[4 * a] -= tr / dim; /* eq. 13 (3D: /3; 2D: /2) */
    double nt = 0.0;
    for (int k = 0; k < 9; k++)
        nt += T[k] * T[k];
    nt = sqrt(nt);
    double yf = 1.0; /* eq. 17: T' = T max(0, |T| - gamma) / |T| */
    if (s->gamma > 0)
        yf = nt > 0 ? fmax(0.0, nt - s->gamma) / nt : 0.0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double om = 0.0;
            if (s->rot) /* eq. 10: Omega = (T w - w T) / 2 */
                for (int c = 0; c < 3; c++)
                    om += 0.5 * (T[3 * a + c] * w[3 * c + b] - w[3 * a + c] * T[3 * c + b]);
            rate[3 * a + b] = om + 0.5 * mu_e * D[3 * a + b] - yf * T[3 * a + b] / lambda; /* eq. 9 */
        }
}

/* Explicit Euler step of eq. 9 from the velocity gradients in s->gradv. */
void my_update_stress(my_state *s, pfb_sim *sim, double dt)
{
    pfb_particles *p = &sim->p;
    const size_t n = p->n;
    double *restrict T = p->field[s->f_T].data;
#pragma omp parallel for schedule(dynamic, 2048) num_threads(sim_threads(sim)) if (sim_parallel(sim, n))
    for (size_t i = 0; i < n; i++) {
        double rate[9];
        double mu_e = material(sim, s->f_mue, i, s->mu_e), lam = material(sim, s->f_lam, i, s->lambda);
        if (s->detached[i]) { /* no continuum around it: no stress (see the header) */
            memset(T + 9 * i, 0, 9 * sizeof *T);
            continue;
        }
        stress_rate(s, sim->dim, s->gradv + 9 * i, T + 9 * i, mu_e, lam, rate);
        for (int k = 0; k < 9; k++)
            T[9 * i + k] += dt * rate[k];
    }
}

int my_stress_update(void *state, pfb_sim *sim, double dt, pfb_err *err)
{
    my_state *s = state;
    int rc = my_neighbours(s, sim, sim->t, 1, err);
    if (rc)
        return rc;
    rc = my_compute_density(s, sim, 1, err);
    if (rc)
        return rc;
    my_update_stress(s, sim, dt);
    return PFB_OK;
}
