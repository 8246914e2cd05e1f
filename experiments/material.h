/* material.h — the three measurements of a method's effective material
 * (properties.c's header gives the methods): the shear wave's viscosity or shear
 * modulus, the settled pool's sound speed, and the drops' Laplace surface tension.
 * The properties experiment reports them; the calibration (calibrate.c) searches
 * parameters with them.  Each runs through exp_run (make-style: a current run is
 * reused) under OUT/runs/<id>; sets are extra "key=value" settings (a trial's
 * parameters) appended after the measurement's own. */
#ifndef PFB_MATERIAL_H
#define PFB_MATERIAL_H

#include <stdio.h>

#include "experiment.h"

typedef struct material_wave_out {
    double nu, nu_err;    /* viscous response: kinematic viscosity and its standard error */
    double G, omega;      /* elastic response: shear modulus rho omega^2 / k^2 */
    double nu_set;        /* muller's stated mu / rho0 (NaN for the others) */
    const char *response; /* "viscous", "elastic" or "none" */
    int unstable;
    char status[320];     /* "" or the blow-up */
} material_wave_out;

typedef struct material_pool_out {
    double c, c_err;      /* sound speed from the hydrostatic compression; NaN if none */
    int unstable;
    char status[320];
} material_pool_out;

typedef struct material_drops_out {
    double sigma, sigma_err; /* Laplace slope / (dim - 1); NaN if fewer than 2 drops */
    double sigma_set;        /* the solver's explicit sigma, or NaN */
    int unstable;            /* some drop blew up */
} material_drops_out;

/* The virial pressure of the particles marked in[i], a region of volume V:
 * (sum m |v - v_mean|^2 + so's pair virial) / (dim V), the virial theorem for a
 * subsystem (solver.h, pair_virial); and, when normal is not NULL, from the
 * same pass the normal stresses on the planes across each axis k (with the
 * pressure's sign), normal[k] = (sum m (v_k - v_mean,k)^2 + the pair virial's
 * axis-k terms) / V, whose mean over the dim axes is the pressure.  NaN (and
 * normal NaN) without a pair virial, a marked particle or a positive V.  The
 * drops' Laplace pressure and the validation's slabs. */
double material_virial_pressure(const pfb_sim *sim, const pfb_solver_ops *so, const void *state,
                                const unsigned char *in, double V, double normal[3]);

/* A buffer of at least n marks (one byte per particle) in *in, grown as needed
 * (*cap its size); NULL when out of memory.  The regions' marks for
 * material_virial_pressure. */
unsigned char *material_marks(unsigned char **in, size_t *cap, size_t n);

/* The shear wave's signal: the velocity's projection on the mode, A(t) =
 * amp_sin, n samples (malloc'd; material_wave_signal_free), the wavenumber k
 * = 2 pi / L, and the run's status ("" or the blow-up). */
typedef struct material_wave_signal {
    double *t, *a;
    size_t n;
    double k;
    int unstable;
    char status[320];
} material_wave_signal;

/* Run the shear wave in a periodic box of cells spacings, at most t_max long
 * (material_wave's run, without its fit); signal as material_wave's. */
int material_wave_run(const pfb_exp_ctx *ctx, const char *experiment, const char *id, const pfb_solver_ops *so,
                      int dim, double dx, double cells, double t_max, const char *const *sets, FILE *signal,
                      material_wave_signal *o, pfb_err *err);
void material_wave_signal_free(material_wave_signal *o);

/* A decaying wave's kinematic viscosity: the least-squares line through
 * ln A over the samples while A > 2 % of A(0) (below that particle noise sets
 * A), nu = -slope / k^2, with its standard error; 0 when fewer than 4 samples
 * qualify (or out of memory), 1 with *nu and *nu_err set. */
int material_wave_decay(const double *t, const double *a, size_t n, double k, double *nu, double *nu_err);

/* The value of key in run directory id's run.meta (OUT/runs/id), or NaN. */
double material_meta_value(const pfb_exp_ctx *ctx, const char *id, const char *key);

/* The shear wave in a periodic box of cells spacings, at most t_max long; signal
 * (may be NULL) gets rows solver,dim,t,amp_sin,amp_cos. */
int material_wave(const pfb_exp_ctx *ctx, const char *experiment, const char *id, const pfb_solver_ops *so, int dim,
                  double dx, double cells, double t_max, const char *const *sets, FILE *signal, material_wave_out *o,
                  pfb_err *err);

/* The pool, t_end long; series (may be NULL) gets rows solver,dim,t,drho_slope. */
int material_pool(const pfb_exp_ctx *ctx, const char *experiment, const char *id, const pfb_solver_ops *so, int dim,
                  double dx, double t_end, const char *const *sets, FILE *series, material_pool_out *o, pfb_err *err);

/* Drops of nr radii at spacing ddx (ids id_prefix_R<radius>); drops (may be NULL)
 * gets rows solver,dim,radius,n,status,p_virial,p_err. */
int material_drops(const pfb_exp_ctx *ctx, const char *experiment, const char *id_prefix, const pfb_solver_ops *so,
                   int dim, const double *radii, int nr, double ddx, double t_end, const char *const *sets,
                   FILE *drops, material_drops_out *o, pfb_err *err);

/* The deformation of a free drop from the second moments I about its centre of
 * mass (an exp_extra row, ctx unused; column material_deformation_names):
 *   2D  D = (I_xx - I_yy) / (I_xx + I_yy)               (the stretch along x)
 *   3D  D = (2 I_yy - I_xx - I_zz) / (I_xx + I_yy + I_zz) (axisymmetric along y) */
extern const char *const material_deformation_names[];
void material_deformation_row(void *ctx, const pfb_sim *sim, double *values);

#endif
