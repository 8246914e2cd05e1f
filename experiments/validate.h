/* validate.h — the measurements a validation against experiment and theory
 * rests on (issue 32): the surge front of a collapsing column, Martin & Moyce's
 * data and time scale, and the observed order of convergence.
 *
 * Martin & Moyce (1952) plot the front of a column of width a and height n^2 a
 * (n^2 = 2: the dam_break scene) as Z = x_front / a against T = t sqrt(2 g / a);
 * note the 2: t sqrt(g / a) is T / sqrt(2).  In these units the inviscid
 * shallow-water (Ritter) front of a column of depth 2a runs at 2 sqrt(2 g a),
 * Z = 1 + 2 T: a fixed point for the units (tests/test_validate.c).
 *
 * The front.  A collapsing column throws spray: single particles ahead of the
 * tongue.  The front is the end of the fluid connected to the wall: sort the
 * particles' x, walk from the wall, and stop at the first gap wider than `gap`
 * between consecutive particles; the front is the last particle before it plus
 * half a spacing (the particle's own extent, so the initial column gives
 * x_front = a exactly).  With gap = 2 spacings a particle counts when it lies
 * within two spacings of the fluid behind it, about the kernel support of the
 * SPH methods (muller's h, mao_yang's): a particle further ahead exchanges no
 * pressure with the tongue and moves ballistically, i.e. it is spray. */
#ifndef PFB_VALIDATE_H
#define PFB_VALIDATE_H

#include <stddef.h>

#include "../core/error.h"

/* Martin & Moyce's time T = t sqrt(2 g / a) and front Z = x / a. */
double validate_mm_T(double t, double g, double a);
double validate_mm_Z(double x, double a);

/* The front (see above) of the n values x (any order; x is not changed) measured
 * from the wall at x_wall, for particles of spacing dx, ending at the first gap
 * wider than gap; NAN when n = 0.  work holds n doubles. */
double validate_front(const double *x, size_t n, double x_wall, double dx, double gap, double *work);

/* Observed order p of err ~ dx^p from n >= 2 resolutions: for n = 2 the two-point
 * value log(e1 / e0) / log(dx1 / dx0) (perr NAN), for n >= 3 the least-squares
 * slope of log err against log dx (gsl_fit_linear) and its standard error.  NAN
 * when fewer than 2 errors are finite and positive (those that are not are left
 * out). */
void validate_order(const double *dx, const double *err, size_t n, double *p, double *perr);

/* One series of the reference data: T and Z of n points (owned). */
typedef struct validate_mm_series {
    char name[32];
    double a_inch;
    double *T, *Z;
    size_t n;
} validate_mm_series;

typedef struct validate_mm_data {
    validate_mm_series s[4];
    size_t ns;
} validate_mm_data;

/* Load data/reference/martin_moyce_1952.csv (header series,a_inch,T,Z; rows of
 * one series together, T increasing).  A missing file, a bad header, a field
 * that is not a finite positive number, T not increasing or more than 4 series
 * is an error naming the file, the line and what is valid. */
int validate_mm_load(const char *path, validate_mm_data *d, pfb_err *err);
/* The same from the file's text (the experiment's compiled-in copy), name in the
 * messages. */
int validate_mm_parse(const char *text, const char *name, validate_mm_data *d, pfb_err *err);
/* The copy compiled into pfbench (validation.c), which the experiment uses. */
int validate_mm_builtin(validate_mm_data *d, pfb_err *err);
void validate_mm_free(validate_mm_data *d);

/* The settled pool (validation.c's hydrostatic case).  Axis 1 is vertical;
 * the span is [lo[k], hi[k]] on the other axes of dim (2 or 3).
 * validate_mass_above: the mass above the plane y = yc of the particles in the
 * span, each particle's mass spread over a layer dy thick centred on it (a
 * plane through a layer of a lattice of spacing dy takes half of it), so a
 * lattice's result is exact for any yc.  validate_surface_rise: the highest y
 * of all n particles less the lowest of the highest y of the columns of width
 * w on the span's axes from lo (columns with no particle left out); NAN when
 * no particle lies in the span or there is no memory for the columns. */
double validate_mass_above(const double *const x[3], const double *m, size_t n, int dim, double yc, double dy,
                           const double lo[3], const double hi[3]);
double validate_surface_rise(const double *const x[3], size_t n, int dim, const double lo[3], const double hi[3],
                             double w);

/* The continuum reference the validation reads from dir (NULL: data/reference):
 * reference_dam_break_slip.csv, reference_dam_break_half.csv (half the fluid's
 * nu), reference_dam_break_3d.csv and reference_drop.csv (gerris.h), made for
 * this fluid; an error naming the first that is missing or
 * bad.  The CLI checks it before it writes anything. */
struct pfb_fluid;
int validation_check_reference(const char *dir, const struct pfb_fluid *fluid, pfb_err *err);

/* A front Z(T) of n samples (T increasing) against Martin & Moyce's points with
 * T <= T_max (both series; Z interpolated linearly between the samples):
 *   mean = mean |Z(T_k) - Z_k| / Z_k,  max = the largest,  bias = the mean signed
 * error (negative: behind); *npoints the points used.  A point outside the
 * samples (a run that stopped early) makes mean, bias and max NaN. */
void validate_mm_errors(const double *T, const double *Z, size_t n, const validate_mm_data *mm, double T_max,
                        double *mean, double *max, double *bias, int *npoints);

/* Linear interpolation of y(x) at xq over n samples x[k * stride], y[k * stride]
 * (x increasing; stride 1 for arrays, the column count for a row-major table's
 * columns); NAN outside [x[0], x[n - 1]].  The one interpolation of the
 * validation and the reference. */
double validate_interp(const double *x, const double *y, size_t n, size_t stride, double xq);

/* A front's response to its viscosity, against the reference's (validation.c's
 * viscosity case).  Four fronts sampled at the same n times: the reference at
 * the fluid's nu (zr) and at nu / 2 (zrh), the run at its viscosity (z) and at
 * half of it (zh).  Means over the n samples:
 *   bias      = mean (z / zr - 1),        bias_half = mean (zh / zrh - 1),
 *   s_run     = mean (zh / z - 1),        s_ref     = mean (zrh / zr - 1),
 *   response  = s_run / s_ref  (1: the run's front answers its viscosity as the
 *               continuum's does; below 1: less),
 *   nu_equiv_rel = 2^(-bias / s_ref): the viscosity, over nu, at which the
 *               reference's front would have the run's bias, with the front
 *               taken as linear in log nu between nu / 2 and nu (s_ref per
 *               halving); a run ahead of the reference (bias > 0) answers as a
 *               thinner fluid would.
 * Any NaN sample makes every output NaN. */
typedef struct validate_visc_response {
    double bias, bias_half, s_run, s_ref, response, nu_equiv_rel;
} validate_visc_response;
void validate_viscous_response(const double *zr, const double *zrh, const double *z, const double *zh, size_t n,
                               validate_visc_response *o);

/* Z of series s at T by linear interpolation; NAN outside its range. */
double validate_mm_interp(const validate_mm_series *s, double T);

#endif
