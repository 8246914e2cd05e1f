/* drop.c — mode-2 oscillation of a free drop: frequency, damping, Rayleigh, R-scaling.
 *
 * The drop scene starts as a volume-preserving mode-2 stretch (amplitude 0.05);
 * frames are written at 120 Hz.  The
 * deformation signal is the normalised difference of second moments about the
 * centre of mass:
 *   2D  D = (I_xx - I_yy) / (I_xx + I_yy)              (the stretch is along x)
 *   3D  D = (2 I_yy - I_xx - I_zz) / (I_xx + I_yy + I_zz) (axisymmetric stretch along y)
 * A damped cosine D(t) = A exp(-beta t) cos(omega t + phi) + c is fitted with GSL's
 * gsl_multifit_nlinear (core/fit.c; initial guess from zero crossings), giving omega,
 * beta and their standard errors.  Where the solver has an explicit sigma, omega is
 * compared with Rayleigh's omega_R: 2D omega_R^2 = (n^3 - n) sigma / (rho R^3) = 6 sigma /
 * (rho R^3); 3D omega_R^2 = l (l-1)(l+2) sigma / (rho R^3) = 8 sigma / (rho R^3).  For every
 * solver, omega over the radii gives the exponent b of omega ~ R^b by a least-squares
 * line in log-log (gsl_fit_linear, its standard error; capillary: -3/2), and each
 * radius an effective sigma_eff = omega^2 rho R^3 / 6 (2D) or / 8 (3D).
 *
 * Outputs:
 *   drop_signal.csv   solver,dim,radius,t,deformation
 *   drop_fits.csv     solver,dim,radius,n,status,reason,omega,omega_err,beta,beta_err,amplitude,
 *                     omega_rayleigh,omega_ratio,sigma_eff,fit,t_half,omega_half
 *   drop_summary.csv  solver,dim,sigma,exponent,exponent_err,sigma_eff_mean,omega_ratio_mean,n_fitted,
 *                     exponent_half,exponent_half_err,n_half
 * The fit uses the ring-down window (core/fit.h: up to the last sample whose
 * excursion from the settled value exceeds 10% of the initial one, plus a quarter),
 * so a strongly damped drop (clavet) is fitted over its ring-down, not over a long
 * tail of particle noise.  Independently of the fit, t_half is the time of the first
 * extremum past the settled value, overshooting it by at least 10% of the
 * initial excursion (half a period however strong the damping;
 * omega_half = pi / t_half, and exponent_half its R-scaling exponent).  A radius whose
 * signal does not oscillate (fewer than two mean crossings) or whose run blew up
 * has fit = none and empty numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fit.h"
#include "experiment.h"
#include "material.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct drop_setup {
    int dim;
    double spacing[2];
} drop_setup;

static const drop_setup setups[] = {{2, {0.005, 0.01}}, {3, {0.01, 0.02}}};
static const double radii[2][4] = {{0.05, 0.07, 0.1, 0.14}, {0.06, 0.08, 0.1, 0.12}};

static int drop_run(const pfb_exp_ctx *ctx, pfb_err *err)
{
    const int q = ctx->quick ? 1 : 0;
    const double t_end = q ? 1.0 : 3.0, rho = 1000.0;
    const int nr = 4;
    exp_csv sig, fits, summary;
    memset(&sig, 0, sizeof sig);
    memset(&fits, 0, sizeof fits);
    memset(&summary, 0, sizeof summary);
    int rc = exp_csv_open(&sig, ctx, "drop_signal.csv", "solver,dim,radius,t,deformation", err);
    if (!rc)
        rc = exp_csv_open(&fits, ctx, "drop_fits.csv",
                          "solver,dim,radius,n,status,reason,omega,omega_err,beta,beta_err,amplitude,omega_rayleigh,"
                          "omega_ratio,sigma_eff,fit,t_half,omega_half",
                          err);
    if (!rc)
        rc = exp_csv_open(&summary, ctx, "drop_summary.csv",
                          "solver,dim,sigma,exponent,exponent_err,sigma_eff_mean,omega_ratio_mean,n_fitted,"
                              "exponent_half,exponent_half_err,n_half",
                              err);
    exp_extra extra = {material_deformation_names, material_deformation_row, NULL, NULL};
    for (size_t si = 0; si < ctx->nsolvers && !rc; si++) {
        const pfb_solver_ops *so = ctx->solvers[si];
        for (size_t u = 0; u < sizeof setups / sizeof setups[0] && !rc; u++) {
            const drop_setup *su = &setups[u];
            double logR[4], logw[4], logRh[4], logwh[4], sum_sig = 0.0, sum_ratio = 0.0, sigma = NAN;
            size_t nfit = 0, nratio = 0, nhalf = 0;
            for (int ri = 0; ri < nr && !rc; ri++) {
                double R = radii[q][ri];
                char id[128], dim[32], spacing[64], tend[64], rad[64];
                snprintf(id, sizeof id, "%s_drop_%dd_R%.3f", so->name, su->dim, R);
                snprintf(dim, sizeof dim, "run.dim=%d", su->dim);
                snprintf(spacing, sizeof spacing, "run.spacing=%.17g", su->spacing[q]);
                snprintf(tend, sizeof tend, "run.t_end=%.17g", t_end);
                snprintf(rad, sizeof rad, "scene.radius=%.17g", R);
                char frames[64];
                snprintf(frames, sizeof frames, "run.frames=%ld", lround(120.0 * t_end));
                const char *sets[] = {dim, spacing, tend, rad, frames, "scene.perturb=shape",
                                      "scene.amplitude=0.05", NULL};
                exp_run_spec spec = {"drop", id, so, "drop", sets, &extra, 0};
                exp_run_out out;
                rc = exp_surface_tension(ctx, &spec, &sigma, err);
                if (!rc)
                    rc = exp_run(ctx, &spec, &out, err);
                if (rc)
                    break;
                const csv_table *x = &out.extra;
                int ct = csv_table_col(x, "t"), cd = csv_table_col(x, "deformation");
                double *t = malloc((x->nrow + 1) * sizeof *t), *y = malloc((x->nrow + 1) * sizeof *y);
                for (size_t r = 0; r < x->nrow && t && y; r++) {
                    t[r] = csv_table_get(x, r, ct);
                    y[r] = csv_table_get(x, r, cd);
                    fprintf(sig.f, "%s,%d,%.6g,%.9g,%.10g\n", so->name, su->dim, R, t[r], y[r]);
                }
                pfb_fit_result fr;
                pfb_err ferr;
                size_t nw = t && y ? fit_ringdown_window(y, x->nrow, 0.1) : 0;
                int fit_ok = !out.unstable && t && y && fit_damped_cosine(t, y, nw, &fr, &ferr) == 0 &&
                             fr.p[FIT_OMEGA] > 0 && isfinite(fr.err[FIT_OMEGA]);
                double th = !out.unstable && t && y ? fit_first_extremum(t, y, x->nrow, 0.1) : NAN;
                double wh = th > 0 ? M_PI / th : NAN;
                if (isfinite(wh)) {
                    logRh[nhalf] = log(R);
                    logwh[nhalf++] = log(wh);
                }
                double wR = sigma > 0 ? sqrt((su->dim == 2 ? 6.0 : 8.0) * sigma / (rho * R * R * R)) : NAN;
                char reason[320];
                exp_reason(&out, reason, sizeof reason);
                if (fit_ok) {
                    double w = fr.p[FIT_OMEGA];
                    double seff = w * w * rho * R * R * R / (su->dim == 2 ? 6.0 : 8.0);
                    fprintf(fits.f, "%s,%d,%.6g,%zu,%s,%s,%.10g,%.6g,%.10g,%.6g,%.6g,%.10g,%.10g,%.10g,damped_cosine,%.10g,%.10g\n",
                            so->name, su->dim, R, out.n, exp_status_word(&out), reason, w, fr.err[FIT_OMEGA],
                            fr.p[FIT_BETA], fr.err[FIT_BETA], fr.p[FIT_A], wR, w / wR, seff, th, wh);
                    logR[nfit] = log(R);
                    logw[nfit] = log(w);
                    sum_sig += seff;
                    if (isfinite(wR)) {
                        sum_ratio += w / wR;
                        nratio++;
                    }
                    nfit++;
                } else {
                    fprintf(fits.f, "%s,%d,%.6g,%zu,%s,%s,,,,,,%.10g,,,none,%.10g,%.10g\n", so->name, su->dim, R,
                            out.n, exp_status_word(&out), reason, wR, th, wh);
                }
                free(t);
                free(y);
                exp_run_out_free(&out);
            }
            if (rc)
                break;
            double b, berr, bh, bherr;
            exp_line_slope(logR, logw, nfit, &b, &berr);
            exp_line_slope(logRh, logwh, nhalf, &bh, &bherr);
            fprintf(summary.f, "%s,%d,%.10g,%.10g,%.6g,%.10g,%.10g,%zu,%.10g,%.6g,%zu\n", so->name, su->dim, sigma, b,
                    berr, nfit ? sum_sig / (double)nfit : NAN, nratio ? sum_ratio / (double)nratio : NAN, nfit, bh,
                    bherr, nhalf);
        }
    }
    exp_csv *const cs[] = {&sig, &fits, &summary};
    return exp_csv_finish(cs, 3, rc, err);
}

const pfb_experiment pfb_exp_drop = {
    "drop", "mode-2 drop oscillation: fitted frequency and damping, Rayleigh ratio, exponent of omega against R",
    drop_run};
