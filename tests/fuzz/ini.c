/* ini.c — fuzz target: INI files (params_load_ini_text) and --set settings
 * (run_apply_setting) into the run, scene and solver tables pfbench run builds.
 *
 * The input is INI text.  When it starts with ';' (a comment), its bytes 1 and 2
 * choose the solver and the scene (modulo their numbers), so every spec table is
 * exercised; otherwise a hash of the input chooses.  The text is loaded as a
 * config file (sections [run], [scene], [<solver>], the other solvers' ignored),
 * then each of its lines is applied as a KEY=VALUE setting, and every value the
 * tables hold must read back from its own formatting bit for bit. */
#include "fuzz.h"

#include "../../core/params.h"
#include "../../core/run.h"
#include "../../core/scene.h"
#include "../../core/solver.h"

static size_t count_solvers(void)
{
    size_t n = 0;
    while (pfb_solvers[n])
        n++;
    return n;
}

static size_t count_scenes(void)
{
    size_t n = 0;
    while (pfb_scenes[n])
        n++;
    return n;
}

/* Every value of p formatted and set again must give the same bits (what
 * run.meta records is what the run used). */
static void check_roundtrip(pfb_params *p)
{
    pfb_params q;
    pfb_err err;
    if (params_copy(&q, p, &err))
        abort();
    for (size_t i = 0; i < p->n; i++) {
        char buf[64];
        params_format(p, i, buf, sizeof buf);
        int rc = params_set(&q, p->spec[i].name, buf, &err);
        if (rc || memcmp(&q.val[i], &p->val[i], sizeof q.val[i])) {
            fprintf(stderr, "fuzz: %s: '%s' = %.17g formats as '%s', which reads back %s\n", p->owner,
                    p->spec[i].name, p->val[i], buf, rc ? err.msg : "as another value");
            abort();
        }
    }
    params_free(&q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const size_t nso = count_solvers(), nsc = count_scenes();
    size_t iso, isc;
    if (size >= 3 && data[0] == ';') {
        iso = data[1] % nso;
        isc = data[2] % nsc;
    } else {
        uint64_t h = 0xcbf29ce484222325ULL;
        for (size_t i = 0; i < size; i++)
            h = (h ^ data[i]) * 0x100000001b3ULL;
        iso = (size_t)(h % nso);
        isc = (size_t)((h >> 32) % nsc);
    }
    const pfb_solver_ops *solver = pfb_solvers[iso];
    const pfb_scene_def *scene = pfb_scenes[isc];
    char sc_owner[96], so_owner[96];
    snprintf(sc_owner, sizeof sc_owner, "scene %s", scene->name);
    snprintf(so_owner, sizeof so_owner, "solver %s", solver->name);
    pfb_params run, sc, so;
    pfb_err err;
    if (params_init(&run, pfb_run_params, "run", &err) || params_init(&sc, scene->params, sc_owner, &err) ||
        params_init(&so, solver->params, so_owner, &err)) {
        fprintf(stderr, "fuzz: %s\n", err.msg);
        abort();
    }

    /* the config file */
    pfb_ini_target targets[] = {{"run", &run}, {"scene", &sc}, {solver->name, &so}};
    const char *ignore[64];
    size_t nign = 0;
    for (size_t i = 0; pfb_solvers[i] && nign < 64; i++)
        if (pfb_solvers[i] != solver)
            ignore[nign++] = pfb_solvers[i]->name;
    int rc = params_load_ini_text("fuzz.ini", (const char *)data, size, targets, 3, ignore, nign, &err);
    fuzz_check_err(rc, &err, "params_load_ini_text");

    /* each line as --set KEY=VALUE */
    char *text = fuzz_strndup(data, size);
    for (char *line = text, *next; line && line < text + size; line = next) {
        next = memchr(line, '\n', (size_t)(text + size - line));
        if (next)
            *next++ = '\0';
        rc = run_apply_setting(&run, &sc, &so, line, &err);
        fuzz_check_err(rc, &err, "run_apply_setting");
    }
    free(text);

    check_roundtrip(&run);
    check_roundtrip(&sc);
    check_roundtrip(&so);
    params_free(&run);
    params_free(&sc);
    params_free(&so);
    return 0;
}
