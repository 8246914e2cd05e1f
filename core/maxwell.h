/* maxwell.h — the standing shear wave of a Maxwell material with a solvent, the
 * virtual rheometer's model (experiments/rheology.c, issue 49).
 *
 * Material: polymer stress tau, lambda dtau/dt + tau = G lambda du/dy (modulus
 * G, relaxation time lambda), plus a Newtonian solvent stress eta_s du/dy.  A
 * standing wave u_x = A(t) sin(k y) in a periodic box (no pressure gradient,
 * u . grad u = 0) with tau = 0 at t = 0 then obeys, for A ~ exp(s t),
 *     rho lambda s^2 + (rho + eta_s lambda k^2) s + k^2 (eta_s + G lambda) = 0,
 * (the s^2 + s / lambda + (G / rho) k^2 = 0 at eta_s = 0), so its two
 * roots have
 *     sum      s1 + s2 = -(1 / lambda + eta_s k^2 / rho),
 *     product  s1 s2   = k^2 (eta_s + G lambda) / (rho lambda).
 * An oscillating wave, A = a exp(-beta t) cos(omega t + phi), has s = -beta +-
 * i omega: sum -2 beta, product beta^2 + omega^2.  Across wavenumbers the sum
 * is linear in k^2 with intercept -1 / lambda and slope -eta_s / rho, and the
 * product over k^2 is the constant (eta_s + G lambda) / (rho lambda): two
 * least-squares lines give lambda, eta_s and G (maxwell_fit).
 *
 * The complex viscosity at a root, eta*(s) = -rho s / k^2, is the model's
 * eta_s + G lambda / (1 + lambda s); on the imaginary axis, s = i w, the
 * storage and loss moduli are
 *     G'(w) = G lambda^2 w^2 / (1 + lambda^2 w^2),
 *     G''(w) = G lambda w / (1 + lambda^2 w^2) + eta_s w    (maxwell_moduli). */
#ifndef PFB_MAXWELL_H
#define PFB_MAXWELL_H

#include <stddef.h>

#include "error.h"

typedef struct pfb_maxwell {
    double G;      /* modulus (Pa) */
    double lambda; /* relaxation time (s) */
    double eta_s;  /* solvent viscosity (Pa s) */
} pfb_maxwell;

/* The two roots of the dispersion relation at wavenumber k and density rho:
 * re[0] +- i im[0] when complex (im[0] = omega > 0, re[1] = re[0], im[1] =
 * -im[0]), else two real roots re[0] >= re[1] (im 0).  Returns 1 when they are
 * complex (the wave oscillates), 0 when real. */
int maxwell_roots(const pfb_maxwell *m, double rho, double k, double re[2], double im[2]);

/* The wave's amplitude A(t) / A(0) for the initial condition tau = 0 (so
 * dA/dt(0) = -eta_s k^2 / rho: the polymer stress starts at zero). */
double maxwell_wave(const pfb_maxwell *m, double rho, double k, double t);

/* G'(w) and G''(w) of the model. */
void maxwell_moduli(const pfb_maxwell *m, double w, double *Gp, double *Gpp);

/* The fit of maxwell_fit: the material and the standard errors of its
 * parameters (NaN with n = 2: no degree of freedom left), and the line's
 * intercept 1 / lambda with its error, which says whether a relaxation is
 * resolved: an intercept within its error of 0 is an elastic solid (lambda =
 * infinity: G is then the product's rho s1 s2 / k^2), one below it a decay
 * the model does not describe. */
typedef struct pfb_maxwell_fit {
    pfb_maxwell m, err;
    double inv_lambda, inv_lambda_err;
} pfb_maxwell_fit;

/* G, lambda and eta_s from the roots' sums and products at n >= 2 distinct
 * wavenumbers (both least-squares lines of the header; lambda = 1 /
 * intercept, infinite for an intercept <= 0).  Fails, naming the value, when
 * a sum is not negative or a product not positive. */
int maxwell_fit(const double *k, const double *sum, const double *prod, size_t n, double rho, pfb_maxwell_fit *out,
                pfb_err *e);

/* Homogeneous simple shear u_x = gdot y from rest (T = 0 at t = 0) of the
 * corotational Maxwell material with von Mises yield, Mao & Yang's eqs. 9-17 as
 * solvers/mao_yang_stress.c takes them:
 *     dT/dt = W T - T W + G D - T' / lambda,
 * L the velocity gradient (L_xy = gdot), W = (L - L^T) / 2, D = L + L^T (so
 * G D = mu_e / 2 D with G = mu_e / 2), T' = T max(0, |T| - yield) / |T| in the
 * Frobenius norm (yield 0: T' = T).  The polymer stress's xx, xy and yy at time
 * t (RK4 in steps steps) into T[0..2].  At small lambda gdot and no yield
 * T_xy = G lambda gdot (1 - exp(-t / lambda)); the steady T_xy is G lambda gdot
 * / (1 + (lambda gdot)^2) (the corotational model thins); with a yield, about
 * yield / sqrt(2) + G lambda gdot (a Bingham fluid's). */
void maxwell_shear(double G, double lambda, double yield, double gdot, double t, long steps, double T[3]);

/* The affine shear modulus of Clavet's springs (Algorithms 3-4) on a simple
 * cubic (2D: square) lattice of spacing dx, density rho, interaction radius h
 * and stiffness k (1/s^2): one spring per pair closer than h, resting at its
 * lattice distance.  Algorithm 3 moves each end of a spring by dt^2 k (1 -
 * L/h) (L - r) / 2, a pair force m k (1 - L/h) (r - L) / 2; under a small
 * affine shear strain e a pair along u stretches by e r u_x u_y, so the
 * virial stress is e times
 *     G = (rho k / 4) sum_j (1 - r_j/h) x_j^2 y_j^2 / r_j^2
 * over the lattice offsets 0 < r_j < h (x, y: the offset's components along
 * the shear and its gradient).  The continuum limit of the sum is pi h^4 /
 * (80 dx^2) in 2D and 4 pi h^5 / (450 dx^3) in 3D: G ~ rho k h^2 (h/dx)^dim.
 * Eq. 8 with both yield ratios gamma = 0 relaxes each rest length as dL/dt =
 * alpha (r - L): every spring is a Maxwell element of relaxation time 1 /
 * alpha, and so, while the motion is affine, is the network (G, 1 / alpha).
 * With gamma > 0 a spring is elastic until |r - L| > gamma L: a yield strain. */
double maxwell_spring_modulus(int dim, double dx, double h, double rho, double k);

/* The same springs under a simple shear of rate gdot from rest, the lattice
 * moving affinely (offset (x, y, z) at (x + gdot t y, y, z)), with eq. 8's
 * plasticity and its yield ratios: each spring's rest length L follows
 *     dL/dt =  alpha_s (r - L - gamma_s L)   where r > L + gamma_s L,
 *     dL/dt = -alpha_c (L - gamma_c L - r)   where r < L - gamma_c L,
 * and 0 between (elastic); as solvers/clavet.c keeps them, a spring is made
 * for every pair within h, resting at its distance at t = 0 (spring_init =
 * distance) and at h later, and removed once L > h.  The springs' virial
 * shear stress is then
 *     sigma_xy = (rho k / 4) sum_j (1 - L_j/h) (r_j - L_j) x'_j y_j / r_j,
 * which at a small strain e is G e (maxwell_spring_modulus).  With both yield
 * ratios 0 it is, at small strain, the Maxwell G lambda gdot (1 - exp(-t /
 * lambda)), lambda = 1 / alpha; with gamma > 0 each spring holds its stretch
 * elastically up to gamma L, and at a rate slow against alpha the stress
 * levels where every stretched spring sits at that yield strain: a yield
 * stress.  Integrated by explicit Euler in 10,000 steps to the last
 * time (the method's own update, in the limit of a small step); the stress at
 * each of the n ascending times t[q] (from 0) into sigma[q]. */
void maxwell_springs_shear(int dim, double dx, double h, double rho, double k, double alpha_s, double alpha_c,
                           double gamma_s, double gamma_c, double gdot, const double *t, size_t n, double *sigma);

/* The free drop (disc in 2D) of radius R of the same material, with surface
 * tension sigma, no gravity and nothing outside: the linear normal mode of
 * degree n (n >= 2; 2 is the blob's and the drop's mode-2 stretch), its
 * displacement ~ exp(s t).  In the Laplace domain (the stress 0 at t = 0) the
 * material is a Newtonian liquid of viscosity eta*(s) = eta_s + G lambda /
 * (1 + lambda s), i.e. of shear modulus G*(s) = s eta*(s), and the linearised
 * equations rho s^2 u = -grad p + G* lap u, div u = 0 have the solutions
 *     u = grad(A r^n P) + the rotational part of B J(k r) P,   k^2 = -rho s^2 / G*,
 * P the angular function (cos n theta; the Legendre P_n) and J the Bessel
 * (2D: J_n, a stream function B J_n sin n theta; 3D: j_n, the poloidal field
 * curl curl (r B j_n P_n)), with p = -rho s^2 A r^n P.  The free surface
 * carries no shear stress and a normal stress balancing the change of the
 * Laplace pressure, -p + 2 G* du_r/dr + sigma c_n u_r / R^2 = 0 with c_n = n^2
 * - 1 (2D) or (n - 1)(n + 2) (3D).  With x = k R and Sigma = sigma / (G* R)
 * the two conditions are, per unit A and B,
 *   2D  [-x^2 + 2n(n-1) + Sigma n c_n] A + [2n (x J' - J) + Sigma n c_n J] B = 0,
 *       -2n(n-1) A + [2 x J' + (x^2 - 2 n^2) J] B = 0;
 *   3D  [-x^2 + 2n(n-1) + Sigma n c_n] A + n(n+1) [2 (x j' - j) + Sigma c_n j] B = 0,
 *       2(n-1) A + [-2 x j' - x^2 j + 2 (n^2 + n - 1) j] B = 0,
 * and s is a root of their determinant (the viscous globe of Lamb's
 * Hydrodynamics, 1932, chapter on viscosity, whose eta becomes eta*(s);
 * the correspondence principle).  Limits the tests check: with G = 0 and a
 * small viscosity Rayleigh's s^2 = -n c_n sigma / (rho R^3) and Lamb's
 * damping 2 n (n-1) nu / R^2 (2D) or (n-1)(2n+1) nu / R^2 (3D); the viscous
 * 2D mode of issue 46 (R 0.1 m, sigma 26.3 N/m, nu 0.01107 m^2/s: omega =
 * 0.9335 omega_R, beta 3.30 1/s); with sigma = 0 the determinant depends on
 * s only through x, its roots are the incompressible elastic body's x_e
 * (maxwell_drop_elastic: n = 2, 2.3539 in 2D, 2.6656 in 3D), and s is the root
 * of the standing wave's relation at k = x_e / R (maxwell_roots).
 *
 * maxwell_drop_det is the determinant at s, with the Bessel functions' common
 * factor (x/2)^nu taken out (each a power series in x^2, so no branch of the
 * square root enters).  maxwell_drop_root: Newton's method from the guess s0
 * (central differences, |ds| < 1e-12 |s|, at most 100 steps); an error when
 * it does not converge.  maxwell_drop_mode: the fundamental, from sigma = 0
 * (the wave's root at k = x_e / R, the complex one or the slower real one)
 * continued in 64 even steps of sigma.  The drop's deformation of
 * material.h, D = (I_xx - I_yy) / (I_xx + I_yy) (2D, n = 2) and its 3D
 * axisymmetric form, is 2 a / R to first order in the mode's surface
 * displacement a cos n theta (a P_2), whatever the interior field: div u = 0
 * makes the second moments' change a surface integral. */
/* A function's Laplace transform F(s) (a callback giving its real and
 * imaginary parts at s), inverted at the times t[0..nt) in [0, t_max] for a
 * function with f(0) = 0 and f'(0) = slope: the Fourier-series form of the
 * Bromwich integral (Dubner and Abate 1968; Crump 1976) with period 4 t_max,
 * abscissa c = 5 / t_max (the first aliased copy weighs exp(-c 4 t_max) =
 * exp(-20) = 2e-9 of f), kmax terms, after subtracting slope / (s + c)^2 (whose
 * inverse, slope t exp(-c t), is added back) so that what remains falls as
 * 1 / s^3: the truncation error then falls as 1 / kmax^2. */
typedef void (*maxwell_transform)(void *ctx, double sre, double sim, double *fre, double *fim);
int maxwell_invert(maxwell_transform F, void *ctx, double slope, const double *t, size_t nt, double t_max, long kmax,
                   double *f, pfb_err *e);

/* The deformation D(t) (the header above: 2 a / R) of the free drop of
 * maxwell_drop_mode's material, started as a ball at rest shape with no stress
 * and the mode-2 potential flow of surface speed U (the blob scene: 2D U (x,
 * -y) / R, 3D U (-x, 2y, -z) / (2R); phi0 = U r^2 P / (2R)): in the Laplace
 * domain p = p~ + rho phi0 makes the equations homogeneous and puts rho
 * phi0(R) = rho U R / 2 into the normal condition, so the two conditions'
 * right-hand side is (rho U R^3 / (2 G*), 0) and u_r(R) follows by Cramer's
 * rule; inverted by maxwell_invert (slope 2 U / R, 20000 terms).  Every mode
 * the flow excites is in it, and the creep that a Maxwell material keeps. */
int maxwell_drop_deformation(const pfb_maxwell *m, int dim, double rho, double R, double sigma, double U,
                             const double *t, size_t nt, double *D, pfb_err *e);
double maxwell_drop_det_re(const pfb_maxwell *m, int dim, int n, double rho, double R, double sigma, double sre,
                           double sim, double *det_im);
double maxwell_drop_elastic(int dim, int n);
int maxwell_drop_root(const pfb_maxwell *m, int dim, int n, double rho, double R, double sigma, double s0_re,
                      double s0_im, double *re, double *im, pfb_err *e);
int maxwell_drop_mode(const pfb_maxwell *m, int dim, int n, double rho, double R, double sigma, double *re, double *im,
                      pfb_err *e);

/* maxwell_drop_mode for a viscous stress of another form: MAXWELL_SYMMETRIC
 * is the fluid's eta* (grad u + grad u^T) (maxwell_drop_mode), MAXWELL_GRADIENT
 * the stress eta* grad u of a Laplacian viscosity, eta* lap u (Müller's eq.
 * 14, solvers/muller.c), in 2D only.  In the bulk of an incompressible flow
 * both give the force eta* lap u; at the free surface the gradient form's
 * traction is -p n + eta* du/dr, so the normal condition reads -p + G* du_r/dr
 * + sigma c_n u_r / R^2 = 0 and the shear condition G* du_theta/dr = 0.  It is
 * the continuum that eq. 14 converges to: a potential flow dissipates half of
 * the fluid's 2 eta e:e there (test_muller). */
enum { MAXWELL_SYMMETRIC = 0, MAXWELL_GRADIENT = 1 };
int maxwell_drop_root_traction(const pfb_maxwell *m, int traction, int dim, int n, double rho, double R, double sigma,
                               double s0_re, double s0_im, double *re, double *im, pfb_err *e);
int maxwell_drop_mode_traction(const pfb_maxwell *m, int traction, int dim, int n, double rho, double R, double sigma,
                               double *re, double *im, pfb_err *e);

#endif
