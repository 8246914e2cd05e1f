/* fluid.c — the reference fluid file (see fluid.h). */
#include "fluid.h"

#include <math.h>
#include <string.h>

#include "../core/params.h"

/* Each default is only the range's minimum, which params_init requires; a key the
 * file does not set is refused (fluid_load), never defaulted.
 * Ranges: positive and finite; the upper bounds are only there to refuse nonsense
 * (a Mach number above 10 or a height above 1 km is no liquid of these scenes). */
static const pfb_param_spec fluid_params[] = {
    {"length", PFB_PARAM_DOUBLE, 1e-6, 1e-6, 1e3, "m", "height H of the scenes' fluid (dam-break column, pool depth)", NULL},
    {"gravity", PFB_PARAM_DOUBLE, 1e-6, 1e-6, 1e4, "m/s^2", "gravitational acceleration g", NULL},
    {"density", PFB_PARAM_DOUBLE, 1e-6, 1e-6, 1e6, "kg/m^3", "density rho", NULL},
    {"Re", PFB_PARAM_DOUBLE, 1e-6, 1e-6, 1e12, "1", "Reynolds number H sqrt(g H) / nu", NULL},
    {"Ma", PFB_PARAM_DOUBLE, 1e-9, 1e-9, 10.0, "1", "Mach number sqrt(g H) / c", NULL},
    {"Bo", PFB_PARAM_DOUBLE, 1e-6, 1e-6, 1e15, "1", "Bond number rho g H^2 / sigma", NULL},
    {NULL, PFB_PARAM_DOUBLE, 0, 0, 0, NULL, NULL, NULL},
};

void fluid_derive(pfb_fluid *f)
{
    const double U = sqrt(f->gravity * f->length);
    f->nu = f->length * U / f->Re;
    f->c = U / f->Ma;
    f->sigma = f->density * f->gravity * f->length * f->length / f->Bo;
}

/* Every key of spec from path's one section [reference] into p (freed by the
 * caller, also on failure), each required: a missing one is named with what is
 * valid; what names the file's kind in the messages. */
static int load_reference(const char *path, const pfb_param_spec *spec, const char *what, pfb_params *p,
                          pfb_err *err)
{
    int rc = params_init(p, spec, what, err);
    if (rc)
        return rc;
    pfb_ini_target t[] = {{"reference", p}};
    rc = params_load_ini(path, t, 1, NULL, 0, err);
    for (size_t i = 0; !rc && i < p->n; i++)
        if (!params_is_set(p, p->spec[i].name))
            rc = pfb_err_set(err, PFB_EINVAL, "%s '%s': [reference] has no '%s'; valid: a %s (%s) from %g to %g",
                             what, path, p->spec[i].name, p->spec[i].help, p->spec[i].unit, p->spec[i].min,
                             p->spec[i].max);
    return rc;
}

int fluid_load(const char *path, pfb_fluid *f, pfb_err *err)
{
    memset(f, 0, sizeof *f);
    pfb_params p;
    memset(&p, 0, sizeof p);
    int rc = load_reference(path, fluid_params, "reference fluid", &p, err);
    if (!rc) {
        f->length = params_get(&p, "length");
        f->gravity = params_get(&p, "gravity");
        f->density = params_get(&p, "density");
        f->Re = params_get(&p, "Re");
        f->Ma = params_get(&p, "Ma");
        f->Bo = params_get(&p, "Bo");
        fluid_derive(f);
    }
    params_free(&p);
    return rc;
}

static const pfb_param_spec visco_params[] = {
    {"G", PFB_PARAM_DOUBLE, 1e-9, 1e-9, 1e12, "Pa", "shear modulus G of the Maxwell material", NULL},
    {"lambda", PFB_PARAM_DOUBLE, 1e-9, 1e-9, 1e9, "s", "relaxation time lambda", NULL},
    {"eta_s", PFB_PARAM_DOUBLE, 1e-9, 1e-9, 1e9, "Pa s", "solvent viscosity eta_s", NULL},
    {NULL, PFB_PARAM_DOUBLE, 0, 0, 0, NULL, NULL, NULL},
};

int viscoelastic_load(const char *path, pfb_viscoelastic *v, pfb_err *err)
{
    memset(v, 0, sizeof *v);
    pfb_params p;
    memset(&p, 0, sizeof p);
    int rc = load_reference(path, visco_params, "viscoelastic reference", &p, err);
    if (!rc) {
        v->G = params_get(&p, "G");
        v->lambda = params_get(&p, "lambda");
        v->eta_s = params_get(&p, "eta_s");
    }
    params_free(&p);
    return rc;
}
