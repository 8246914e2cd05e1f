/* registry.c — every back end, looked up by name.  A new solver adds one line here. */
#include <string.h>

#include "../core/solver.h"

extern const pfb_solver_ops pfb_solver_muller;
extern const pfb_solver_ops pfb_solver_clavet;
extern const pfb_solver_ops pfb_solver_miller_pearce;
extern const pfb_solver_ops pfb_solver_mao_yang;

const pfb_solver_ops *const pfb_solvers[] = {
    &pfb_solver_muller,
    &pfb_solver_clavet,
    &pfb_solver_miller_pearce,
    &pfb_solver_mao_yang,
    NULL};

const pfb_solver_ops *solver_find(const char *name)
{
    for (size_t i = 0; pfb_solvers[i]; i++)
        if (strcmp(pfb_solvers[i]->name, name) == 0)
            return pfb_solvers[i];
    return NULL;
}

int solver_lookup(const char *name, const pfb_solver_ops **out, pfb_err *err)
{
    *out = solver_find(name);
    if (*out)
        return PFB_OK;
    const char *names[32];
    size_t n = 0;
    char list[512] = "";
    for (size_t i = 0; pfb_solvers[i] && n < 32; i++) {
        names[n++] = pfb_solvers[i]->name;
        if (i)
            strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, pfb_solvers[i]->name, sizeof list - strlen(list) - 1);
    }
    const char *near = pfb_nearest(name, names, n);
    if (near)
        return pfb_err_set(err, PFB_EINVAL, "unknown solver '%s'; did you mean '%s'? valid: %s", name, near, list);
    return pfb_err_set(err, PFB_EINVAL, "unknown solver '%s'; valid: %s", name, list);
}
