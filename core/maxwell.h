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

#endif
