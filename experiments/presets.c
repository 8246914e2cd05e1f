/* presets.c — material presets (presets.h). */
#include "presets.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "presets_gen.h" /* PFB_PRESET_CALIBRATED, PFB_PRESET_PAPER: scenes/<name>.ini as text */

static const struct {
    const char *name, *text;
} builtin[] = {{"calibrated", PFB_PRESET_CALIBRATED}, {"paper", PFB_PRESET_PAPER}};

int preset_resolve(const char *arg, pfb_preset *p, pfb_err *err)
{
    memset(p, 0, sizeof *p);
    if (!arg || !arg[0])
        return pfb_err_set(err, PFB_EINVAL, "empty preset; valid: calibrated, paper, none or an INI file path");
    snprintf(p->name, sizeof p->name, "%s", arg);
    const size_t n = strlen(arg);
    if (strchr(arg, '/') || (n > 4 && !strcmp(arg + n - 4, ".ini"))) {
        if (access(arg, R_OK) != 0)
            return pfb_err_set(err, PFB_EIO, "preset file '%s' is not readable; valid: calibrated, paper, none or a "
                                             "readable INI file", arg);
        p->is_file = 1;
        return PFB_OK;
    }
    if (!strcmp(arg, "none"))
        return PFB_OK;
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (!strcmp(arg, builtin[i].name)) {
            p->text = builtin[i].text;
            p->len = strlen(builtin[i].text);
            return PFB_OK;
        }
    return pfb_err_set(err, PFB_EINVAL, "unknown preset '%s'; valid: calibrated, paper, none or an INI file path", arg);
}

int preset_apply(const pfb_preset *p, const pfb_solver_ops *so, pfb_params *solver, pfb_err *err)
{
    if (!p->is_file && !p->text)
        return PFB_OK;
    pfb_ini_target targets[] = {{so->name, solver}};
    const char *ignore[64];
    size_t nign = 0;
    for (size_t i = 0; pfb_solvers[i] && nign < 64; i++)
        if (pfb_solvers[i] != so)
            ignore[nign++] = pfb_solvers[i]->name;
    char shown[4200];
    snprintf(shown, sizeof shown, "preset %s", p->name);
    return p->is_file ? params_load_ini(p->name, targets, 1, ignore, nign, err)
                      : params_load_ini_text(shown, p->text, p->len, targets, 1, ignore, nign, err);
}
