/* fit.h — least-squares fit of a damped cosine (the drop experiment's signal).
 *
 * Model: y(t) = A exp(-beta t) cos(omega t + phi) + c, fitted with GSL's
 * gsl_multifit_nlinear (trust region, Levenberg–Marquardt) from an initial guess
 * taken from the zero crossings of y - mean(y) (omega), the largest excursion (A),
 * the first sample (phi) and the decay of successive extrema (beta).  Standard
 * errors are sqrt(diag(C)) * sqrt(chi^2 / (n - 5)), C = (J^T J)^-1 at the solution. */
#ifndef PFB_FIT_H
#define PFB_FIT_H

#include <stddef.h>
#include "error.h"

enum { FIT_A = 0, FIT_BETA, FIT_OMEGA, FIT_PHI, FIT_C, FIT_NPAR };

typedef struct pfb_fit_result {
    double p[FIT_NPAR];      /* A, beta, omega, phi, c */
    double err[FIT_NPAR];    /* standard errors */
    double guess[FIT_NPAR];  /* the initial guess */
    double chi2;             /* sum of squared residuals */
    size_t dof;              /* n - 5 */
    int iterations;
} pfb_fit_result;

/* Initial guess from zero crossings and extrema; fails when y has fewer than two crossings. */
int fit_damped_cosine_guess(const double *t, const double *y, size_t n, double guess[FIT_NPAR], pfb_err *err);

/* The ring-down window of a decaying signal: the number of leading samples to fit.
 * With c the mean of the last quarter of the samples (the settled value) and a0 =
 * |y[0] - c| the initial excursion, the window ends at the last sample whose
 * excursion |y - c| still exceeds frac a0, extended by a quarter of its length (so
 * the fit sees the approach to c); at least min(n, 8) samples.  A strongly damped
 * signal followed by a long noisy tail is then fitted over its ring-down only,
 * where the tail's noise would otherwise set the zero crossings of the guess; a
 * weakly damped signal keeps every sample. */
size_t fit_ringdown_window(const double *y, size_t n, double frac);

/* Time of the first extremum of y past its settled value c (the mean of the last
 * quarter of the samples) on the side opposite to y[0]: half a period of an
 * oscillation, however strongly damped.  The search runs from the first crossing
 * of c (index i1) to the crossing back or 3 i1, whichever is first (a cosine's
 * extremum lies a quarter period past the crossing, itself a quarter period in).
 * NAN when y never crosses c, or when the overshoot past c is below frac |y[0] - c|
 * (a signal that only relaxes, and settles on c within noise, has no period). */
double fit_first_extremum(const double *t, const double *y, size_t n, double frac);

/* The same guess with the crossings taken about a given value instead of the
 * mean (which a strongly damped signal's first swing pulls off its settled
 * value, leaving one crossing where the signal has several): the shear waves
 * of the rheometer, which settle on 0. */
int fit_damped_cosine_guess_about(const double *t, const double *y, size_t n, double about, double guess[FIT_NPAR],
                                  pfb_err *err);

/* Fit the damped cosine to n >= 8 samples (t increasing). */
int fit_damped_cosine(const double *t, const double *y, size_t n, pfb_fit_result *res, pfb_err *err);

/* The same fit from the guess already in res->guess. */
int fit_damped_cosine_from(const double *t, const double *y, size_t n, pfb_fit_result *res, pfb_err *err);

#endif
