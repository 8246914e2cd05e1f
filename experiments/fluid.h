/* fluid.h — the reference fluid (scenes/fluid.ini): the targets every method is
 * calibrated to, as dimensionless groups of a gravity scene of height H.
 *
 *   Re = H sqrt(g H) / nu,   Ma = sqrt(g H) / c,   Bo = rho g H^2 / sigma
 *
 * The file has one section [reference] with every key below; each is required and
 * must be a finite positive number (no default stands in for a target). */
#ifndef PFB_FLUID_H
#define PFB_FLUID_H

#include "../core/error.h"

typedef struct pfb_fluid {
    double length, gravity, density; /* H (m), g (m/s^2), rho (kg/m^3) */
    double Re, Ma, Bo;               /* the targets */
    double nu, c, sigma;             /* what they mean for this H, g, rho */
} pfb_fluid;

/* Read path into f.  A missing file, section or key, an unknown key, or a value that
 * is not a finite positive number is an error naming it and what is valid. */
int fluid_load(const char *path, pfb_fluid *f, pfb_err *err);

/* nu, c and sigma from the groups (fluid_load calls it). */
void fluid_derive(pfb_fluid *f);

/* The viscoelastic reference material (scenes/viscoelastic.ini, issue 49): a
 * Maxwell material with a solvent, the rheometer's calibration target.  One
 * section [reference] with G (Pa), lambda (s) and eta_s (Pa s), each required,
 * finite and positive. */
typedef struct pfb_viscoelastic {
    double G, lambda, eta_s;
} pfb_viscoelastic;

int viscoelastic_load(const char *path, pfb_viscoelastic *v, pfb_err *err);

#endif
