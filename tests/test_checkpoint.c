/* test_checkpoint.c — checkpoints and resume (issue 34; core/run.h,
 * core/checkpoint.h): a run stopped part-way (run_config.stop_after_steps, the
 * same path as a SIGINT or SIGTERM: the step finished, the checkpoint,
 * series.partial.csv and run.meta written) and resumed gives every output file
 * of the uninterrupted run byte for byte (run.meta aside: wall time, date,
 * command), for every solver in 2D and 3D, with rigid bodies, with the
 * emitter, in a periodic box, with mao_yang's re-sampling between frames; a
 * run checkpointing every few frames gives the same files; and a checkpoint
 * that is corrupt, truncated, of other parameters or of another commit is
 * refused with one line naming what is wrong, every file left as it was. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/checkpoint.h"
#include "../core/run.h"
#include "testutil.h"

/* A fresh directory under /tmp (removed by rm_tree). */
static void make_dir(char *buf, size_t len)
{
    snprintf(buf, len, "/tmp/pfb_ckpt_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(buf));
}

static void rm_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            rm_tree(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    b[n] = '\0';
    *len = (size_t)n;
    return b;
}

/* Every file under a (but run.meta) is in b with the same bytes, and b has no
 * other file; returns the files compared. */
static size_t same_tree(const char *a, const char *b)
{
    size_t count = 0;
    DIR *d = opendir(a);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "run.meta"))
            continue;
        char pa[4096], pb[4096];
        snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, e->d_name);
        struct stat st;
        ck_assert_int_eq(stat(pa, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            count += same_tree(pa, pb);
            continue;
        }
        size_t la, lb;
        char *x = slurp(pa, &la), *y = slurp(pb, &lb);
        ck_assert_msg(y != NULL, "%s is missing", pb);
        ck_assert_msg(la == lb && !memcmp(x, y, la), "%s differs from %s", pb, pa);
        free(x);
        free(y);
        count++;
    }
    closedir(d);
    d = opendir(b);
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) { /* nothing more in b */
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "run.meta"))
            continue;
        char pa[4096];
        snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
        ck_assert_msg(access(pa, F_OK) == 0, "%s/%s is left over", b, e->d_name);
    }
    closedir(d);
    return count;
}

static int exists_in(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

typedef struct ck_case {
    const char *solver, *scene;
    int dim;
    const char *spacing, *t_end;
    long stop;             /* steps before the stop */
    const char *extra;     /* one more setting, or NULL */
} ck_case;

static const ck_case cases[] = {
    {"muller", "dam_break", 2, "0.02", "0.3", 777, NULL},
    {"muller", "dam_break", 3, "0.05", "0.2", 301, NULL},
    {"clavet", "dam_break", 2, "0.02", "0.3", 45, NULL},
    {"clavet", "dam_break", 3, "0.05", "0.2", 21, NULL},
    {"clavet", "dam_break", 2, "0.02", "0.3", 45, "solver.relaxation=jacobi"},
    {"miller_pearce", "dam_break", 2, "0.02", "0.3", 1111, NULL},
    {"miller_pearce", "dam_break", 3, "0.05", "0.2", 555, NULL},
    {"mao_yang", "dam_break", 2, "0.02", "0.3", 150, NULL}, /* stopped after frame 7, whose re-sampling merged a particle (n = 299) */
    {"mao_yang", "dam_break", 3, "0.05", "0.2", 13, NULL},
    {"clavet", "float", 2, "0.04", "0.4", 33, NULL},        /* rigid bodies */
    {"muller", "float", 3, "0.05", "0.15", 150, NULL},
    {"muller", "fill", 2, "0.02", "0.4", 900, NULL},        /* the emitter */
    {"clavet", "blob", 2, "0.01", "0.2", 30, "solver.springs=true"}, /* springs (Algorithm 4) */
    {"miller_pearce", "shear_wave", 2, "0.01", "0.1", 500, NULL}, /* periodic */
    {"clavet", "blob", 2, "0.01", "0.2", 30, "run.settle=0.02"},  /* the settle: not repeated on resume */
};

static void set_case(tu_run *t, const ck_case *c)
{
    char dim[32], sp[64], te[64];
    snprintf(dim, sizeof dim, "run.dim=%d", c->dim);
    snprintf(sp, sizeof sp, "run.spacing=%s", c->spacing);
    snprintf(te, sizeof te, "run.t_end=%s", c->t_end);
    const char *sets[] = {dim, sp, te, c->extra, NULL};
    tu_run_init(t, c->solver, c->scene, sets);
}

/* Stopped after c->stop steps, then resumed: the uninterrupted run's files. */
START_TEST(test_stop_resume_same_bytes)
{
    const ck_case *c = &cases[_i];
    char ref[64], run[64];
    make_dir(ref, sizeof ref);
    make_dir(run, sizeof run);
    tu_run t;
    set_case(&t, c);
    pfb_run_result res;
    pfb_err err;
    t.cfg.out_dir = ref;
    ck_assert_msg(run_execute(&t.cfg, &res, &err) == 0, "%s", err.msg);
    ck_assert_msg(!res.unstable, "%s %s %dD: %s", c->solver, c->scene, c->dim, res.reason);
    const long total = res.steps;
    ck_assert_msg(c->stop < total, "the stop at %ld is past the run's %ld steps", c->stop, total);

    t.cfg.out_dir = run;
    t.cfg.stop_after_steps = c->stop;
    ck_assert_int_eq(run_execute(&t.cfg, &res, &err), PFB_EINTR);
    ck_assert(res.interrupted);
    ck_assert_int_eq(res.steps, c->stop);
    ck_assert(exists_in(run, PFB_CHECKPOINT_FILE) && exists_in(run, "series.partial.csv"));
    ck_assert_msg(!exists_in(run, "series.csv"), "an interrupted run left a series.csv");
    size_t ml;
    char mpath[128];
    snprintf(mpath, sizeof mpath, "%s/run.meta", run);
    char *meta = slurp(mpath, &ml);
    ck_assert_msg(meta && strstr(meta, "status = interrupted\n"), "run.meta:\n%s", meta);
    free(meta);

    t.cfg.stop_after_steps = 0;
    t.cfg.resume = 1;
    ck_assert_msg(run_execute(&t.cfg, &res, &err) == 0, "resume: %s", err.msg);
    ck_assert_int_eq(res.steps, total);
    ck_assert(!exists_in(run, PFB_CHECKPOINT_FILE) && !exists_in(run, "series.partial.csv"));
    const size_t files = same_tree(ref, run);
    ck_assert_msg(files >= 3, "%zu files compared", files);
    tu_run_free(&t);
    rm_tree(ref);
    rm_tree(run);
}
END_TEST

/* Checkpoints every 2 frames change nothing, and a finished run keeps none. */
START_TEST(test_checkpoint_every_same_bytes)
{
    const ck_case *c = &cases[_i];
    char ref[64], run[64];
    make_dir(ref, sizeof ref);
    make_dir(run, sizeof run);
    tu_run t;
    set_case(&t, c);
    pfb_run_result res;
    pfb_err err;
    t.cfg.out_dir = ref;
    ck_assert_msg(run_execute(&t.cfg, &res, &err) == 0, "%s", err.msg);
    t.cfg.out_dir = run;
    t.cfg.checkpoint_every = 2;
    ck_assert_msg(run_execute(&t.cfg, &res, &err) == 0, "%s", err.msg);
    ck_assert(!exists_in(run, PFB_CHECKPOINT_FILE));
    same_tree(ref, run);
    tu_run_free(&t);
    rm_tree(ref);
    rm_tree(run);
}
END_TEST

/* A concatenation of every file under dir (names and bytes), to see that
 * nothing changed. */
static void tree_bytes(const char *dir, FILE *out)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    char *names[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 256)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            names[n++] = strdup(e->d_name);
    closedir(d);
    for (size_t i = 0; i < n; i++) { /* sorted: the listing's order is the file system's */
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char *s = names[i];
                names[i] = names[j];
                names[j] = s;
            }
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        struct stat st;
        ck_assert_int_eq(stat(p, &st), 0);
        fprintf(out, "%s\n", p);
        if (S_ISDIR(st.st_mode)) {
            tree_bytes(p, out);
        } else {
            size_t len;
            char *b = slurp(p, &len);
            fwrite(b, 1, len, out);
            free(b);
        }
        free(names[i]);
    }
}

static char *snapshot(const char *dir)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    tree_bytes(dir, f);
    fclose(f);
    return text;
}

/* A refused resume: the message says why (needle), and nothing changed. */
static void expect_refused(tu_run *t, const char *dir, const char *needle)
{
    char *before = snapshot(dir);
    pfb_run_result res;
    pfb_err err;
    t->cfg.out_dir = dir;
    t->cfg.resume = 1;
    const int rc = run_execute(&t->cfg, &res, &err);
    ck_assert_msg(rc != 0 && rc != PFB_EINTR, "resume accepted (%d)", rc);
    ck_assert_msg(strstr(err.msg, needle) && strstr(err.msg, "valid") && !strchr(err.msg, '\n'),
                  "message: %s (wanted '%s')", err.msg, needle);
    char *after = snapshot(dir);
    ck_assert_msg(!strcmp(before, after), "a refused resume changed the directory");
    free(before);
    free(after);
    t->cfg.resume = 0;
}

START_TEST(test_refused_checkpoints)
{
    char dir[64], path[128];
    make_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir, PFB_CHECKPOINT_FILE);
    tu_run t;
    set_case(&t, &cases[0]);
    pfb_run_result res;
    pfb_err err;
    t.cfg.out_dir = dir;
    t.cfg.stop_after_steps = 100;
    ck_assert_int_eq(run_execute(&t.cfg, &res, &err), PFB_EINTR);
    t.cfg.stop_after_steps = 0;
    size_t len;
    char *good = slurp(path, &len);
    ck_assert_ptr_nonnull(good);
    FILE *f;
    /* one byte changed in the particles: the hash sees it */
    good[len / 2] ^= 0x10;
    f = fopen(path, "wb");
    fwrite(good, 1, len, f);
    fclose(f);
    expect_refused(&t, dir, "corrupt");
    good[len / 2] ^= 0x10;
    /* cut short */
    f = fopen(path, "wb");
    fwrite(good, 1, len / 3, f);
    fclose(f);
    expect_refused(&t, dir, "truncated");
    /* not a checkpoint at all */
    f = fopen(path, "wb");
    fputs("frame,t\n0,0\n", f);
    fclose(f);
    expect_refused(&t, dir, "not a pfbench checkpoint");
    /* the good one with other parameters: the line that differs is named */
    f = fopen(path, "wb");
    fwrite(good, 1, len, f);
    fclose(f);
    tu_run t2;
    const char *sets[] = {"run.dim=2", "run.spacing=0.02", "run.t_end=0.3", "solver.viscosity=0.5", NULL};
    tu_run_init(&t2, "muller", "dam_break", sets);
    expect_refused(&t2, dir, "solver.viscosity");
    tu_run_free(&t2);
    /* sealed with a good hash but counts no checkpoint has: a particle count
     * whose storage overflows, and more bodies than there are */
    for (int which = 0; which < 2; which++) {
        pfb_ckpt_r r;
        ck_assert_int_eq(ckpt_open_mem(&r, good, len, "good", &err), 0);
        pfb_ckpt_w w;
        ck_assert_int_eq(ckpt_begin(&w, &err), 0);
        while (r.len - r.pos >= 12 && memcmp(r.buf + r.pos, "END ", 4)) {
            char tag[5];
            memcpy(tag, r.buf + r.pos, 4);
            tag[4] = '\0';
            const void *p;
            size_t n;
            ck_assert_int_eq(ckpt_get(&r, tag, &p, &n, &err), 0);
            char *q = malloc(n ? n : 1);
            memcpy(q, p, n);
            if (!strcmp(tag, "SIM ")) {
                const size_t at_n = n - 2 * sizeof(size_t),
                             at_bodies = at_n - sizeof(uint64_t) - sizeof(pfb_bodies);
                const size_t huge = (SIZE_MAX >> 1) + 2, many = PFB_MAX_BODIES + 1000;
                if (which == 0)
                    memcpy(q + at_n, &huge, sizeof huge);
                else
                    memcpy(q + at_bodies, &many, sizeof many);
            }
            ckpt_put(&w, tag, q, n);
            free(q);
        }
        ckpt_close(&r);
        ck_assert_int_eq(ckpt_commit(&w, path, &err), 0);
        expect_refused(&t, dir, "inconsistent");
    }
    /* another commit's: a checkpoint of this one's layout but another HEAD */
    pfb_ckpt_w w;
    ck_assert_int_eq(ckpt_begin(&w, &err), 0);
    ckpt_put(&w, "HEAD", "0123456789ab", 12);
    ck_assert_int_eq(ckpt_commit(&w, path, &err), 0);
    expect_refused(&t, dir, "commit 0123456789ab");
    /* none at all */
    unlink(path);
    expect_refused(&t, dir, "cannot read the checkpoint");
    free(good);
    tu_run_free(&t);
    rm_tree(dir);
}
END_TEST

/* The first row's value of column col in dir/series.csv. */
static double series_first(const char *dir, const char *col)
{
    char path[128];
    snprintf(path, sizeof path, "%s/series.csv", dir);
    size_t n;
    char *text = slurp(path, &n);
    ck_assert_msg(text != NULL, "no %s", path);
    char *nl = strchr(text, '\n');
    ck_assert(nl != NULL);
    *nl = '\0';
    int c = -1, k = 0;
    for (char *tok = text, *end; tok; tok = end ? end + 1 : NULL, k++) {
        end = strchr(tok, ',');
        if (end)
            *end = '\0';
        if (!strcmp(tok, col))
            c = k;
    }
    ck_assert_msg(c >= 0, "no column %s", col);
    char *row = nl + 1;
    for (k = 0; k < c && row; k++) {
        row = strchr(row, ',');
        row = row ? row + 1 : NULL;
    }
    ck_assert(row != NULL);
    const double v = strtod(row, NULL);
    free(text);
    return v;
}

/* The settle (run.settle, core/run.h): the blob settled for 0.05 s starts
 * with the scene's velocities given back particle by particle, so frame 0's
 * kinetic energy is the unsettled run's (the same masses and velocities,
 * summed in another order: 1e-12 relative), while the particles have moved
 * (the x extent differs); with speed 0 it starts at rest, exactly.  A sheared
 * box refuses it in one line, before any file is written. */
START_TEST(test_settle)
{
    const char *speeds[2] = {"scene.speed=0.5", "scene.speed=0"};
    for (int q = 0; q < 2; q++) {
        double ke[2], ext[2];
        for (int settle = 0; settle < 2; settle++) {
            char dir[64];
            make_dir(dir, sizeof dir);
            const char *sets[] = {"run.dim=2", "run.spacing=0.02", "run.t_end=0.02", "run.frames=1", speeds[q],
                                  settle ? "run.settle=0.05" : NULL, NULL};
            tu_run t;
            tu_run_init(&t, "clavet", "blob", sets);
            t.cfg.out_dir = dir;
            pfb_run_result res;
            pfb_err err;
            ck_assert_msg(run_execute(&t.cfg, &res, &err) == 0, "%s", err.msg);
            ck_assert_msg(!res.unstable, "%s", res.reason);
            ke[settle] = series_first(dir, "ke");
            ext[settle] = series_first(dir, "xmax");
            tu_run_free(&t);
            rm_tree(dir);
        }
        if (q == 0)
            ck_assert_msg(fabs(ke[1] / ke[0] - 1.0) <= 1e-12, "frame 0's KE %.17g settled, %.17g not", ke[1], ke[0]);
        else
            ck_assert_msg(ke[0] == 0.0 && ke[1] == 0.0, "at rest: KE %g and %g", ke[0], ke[1]);
        ck_assert_msg(ext[1] != ext[0], "the settle moved nothing (xmax %g)", ext[0]);
    }
    char dir[64];
    make_dir(dir, sizeof dir);
    rm_tree(dir);
    const char *sets[] = {"run.dim=2", "run.spacing=0.01", "scene.shear_rate=1", "run.settle=0.1", NULL};
    tu_run t;
    tu_run_init(&t, "mao_yang", "shear_wave", sets);
    t.cfg.out_dir = dir;
    pfb_run_result res;
    pfb_err err;
    ck_assert_int_eq(run_execute(&t.cfg, &res, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "run.settle = 0.1") && strstr(err.msg, "sheared box") && !strchr(err.msg, '\n'),
                  "%s", err.msg);
    struct stat sb;
    ck_assert_msg(stat(dir, &sb) != 0, "the refused run created %s", dir);
    tu_run_free(&t);
}
END_TEST

static Suite *checkpoint_suite(void)
{
    Suite *s = suite_create("checkpoint");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_stop_resume_same_bytes, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_loop_test(tc, test_checkpoint_every_same_bytes, 0, 3);
    tcase_add_test(tc, test_refused_checkpoints);
    tcase_add_test(tc, test_settle);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(checkpoint_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
