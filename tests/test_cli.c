/* test_cli.c — Check suite for the `pfbench` command itself (cli/main.c with
 * core/run.c and core/output.c behind it).
 *
 * Every test runs the real binary (PFB_BIN, set by the Makefile; under
 * SANITIZE=1 it is the sanitized build) with fork/exec, in a fresh mkdtemp
 * directory: the child's working directory is <tmp>/w, its stdout and stderr go
 * to files in <tmp>, and stdin is /dev/null.  The runs are kept small (2D dam
 * break at spacing 0.025 has 200 particles) so the suite takes a few seconds. */
#include <check.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/scene.h"
#include "../core/solver.h"
#include "../experiments/experiment.h"

#ifndef PFB_BIN
#error "PFB_BIN (absolute path of the pfbench binary) must be defined by the build"
#endif

#define PATH_LEN 4096
#define MAX_ARGS 48
#define END ((const char *)NULL)

/* buf := the formatted path; a path that does not fit fails the test. */
static void fmt_path(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    ck_assert_msg(n >= 0 && (size_t)n < len, "path too long: %s...", buf);
}

/* ------------------------------------------------------------------------- */
/* Fixtures: one temporary directory per test                                */

/* Check ends a failed test's process with _exit, so a checked teardown does not
 * run then.  The unchecked fixture runs in the parent: it makes one base
 * directory per test case and removes it afterwards, whatever happened; each
 * test gets its own <tmp> below it. */
static char base_dir[PATH_LEN];  /* /tmp/pfb_test_cli_XXXXXX, made in the parent */
static char tmp_dir[PATH_LEN];   /* <tmp> = <base>/tXXXXXX: capture files live here */
static char work_dir[PATH_LEN];  /* <tmp>/w: the child's cwd, where runs write */

/* Remove path and everything below it (no symlinks are followed). */
static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                    continue;
                char sub[PATH_LEN];
                fmt_path(sub, sizeof sub, "%s/%s", path, e->d_name);
                remove_tree(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void base_setup(void)
{
    snprintf(base_dir, sizeof base_dir, "/tmp/pfb_test_cli_XXXXXX");
    ck_assert_msg(mkdtemp(base_dir) != NULL, "mkdtemp: %s", strerror(errno));
}

static void base_teardown(void)
{
    if (base_dir[0])
        remove_tree(base_dir);
    base_dir[0] = '\0';
}

/* Faults for the next cli_run (the write-error tests; reset by cli_setup):
 * a file size limit (RLIMIT_FSIZE, with SIGXFSZ ignored, so a write past it
 * fails with EFBIG as on a full disk), an address-space limit (RLIMIT_AS: an
 * allocation past it fails) and stdout sent to /dev/full. */
static rlim_t child_fsize, child_as;
static int child_stdout_full;

static void cli_setup(void)
{
    child_fsize = child_as = 0;
    child_stdout_full = 0;
    fmt_path(tmp_dir, sizeof tmp_dir, "%s/tXXXXXX", base_dir);
    ck_assert_msg(mkdtemp(tmp_dir) != NULL, "mkdtemp: %s", strerror(errno));
    fmt_path(work_dir, sizeof work_dir, "%s/w", tmp_dir);
    ck_assert_msg(mkdir(work_dir, 0700) == 0, "mkdir %s: %s", work_dir, strerror(errno));
}

static void cli_teardown(void)
{
    if (tmp_dir[0])
        remove_tree(tmp_dir);
    tmp_dir[0] = '\0';
}

/* buf := <tmp>/w/rel */
static const char *wpath(char *buf, size_t len, const char *rel)
{
    int n = snprintf(buf, len, "%s/%s", work_dir, rel);
    ck_assert(n > 0 && (size_t)n < len);
    return buf;
}

/* ------------------------------------------------------------------------- */
/* Files                                                                      */

/* Whole file as a NUL-terminated string (free it), or NULL if it cannot be read. */
static char *slurp(const char *path, size_t *len_out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    ck_assert(buf != NULL);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
            ck_assert(buf != NULL);
        }
    }
    fclose(f);
    buf[len] = '\0';
    if (len_out)
        *len_out = len;
    return buf;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot create %s: %s", path, strerror(errno));
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Visit every entry below dir (not dir itself); rel is the path relative to dir. */
typedef void (*visit_fn)(const char *rel, void *ctx);

static void walk(const char *dir, const char *prefix, visit_fn fn, void *ctx)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char full[PATH_LEN], rel[PATH_LEN];
        fmt_path(full, sizeof full, "%s/%s", dir, e->d_name);
        fmt_path(rel, sizeof rel, "%s%s", prefix, e->d_name);
        fn(rel, ctx);
        struct stat st;
        if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
            char sub[PATH_LEN];
            fmt_path(sub, sizeof sub, "%s/", rel);
            walk(full, sub, fn, ctx);
        }
    }
    closedir(d);
}

typedef struct name_list {
    char *names[512];
    size_t n;
} name_list;

static void collect(const char *rel, void *ctx)
{
    name_list *l = ctx;
    ck_assert_msg(l->n < sizeof l->names / sizeof l->names[0], "too many files under the work directory");
    l->names[l->n] = strdup(rel);
    ck_assert(l->names[l->n] != NULL);
    l->n++;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, '\n'-joined list of every path under dir (free it). */
static char *tree_listing(const char *dir)
{
    name_list l;
    l.n = 0;
    walk(dir, "", collect, &l);
    qsort(l.names, l.n, sizeof l.names[0], cmp_str);
    size_t total = 1;
    for (size_t i = 0; i < l.n; i++)
        total += strlen(l.names[i]) + 1;
    char *s = malloc(total);
    ck_assert(s != NULL);
    s[0] = '\0';
    for (size_t i = 0; i < l.n; i++) {
        strcat(s, l.names[i]);
        strcat(s, "\n");
        free(l.names[i]);
    }
    return s;
}

static void find_tmp(const char *rel, void *ctx)
{
    char *hit = ctx;
    size_t n = strlen(rel);
    if (n >= 4 && !strcmp(rel + n - 4, ".tmp") && hit[0] == '\0')
        snprintf(hit, PATH_LEN, "%s", rel);
}

/* No file or directory whose name ends in ".tmp" anywhere under dir. */
static void assert_no_tmp_files(const char *dir)
{
    char hit[PATH_LEN] = "";
    walk(dir, "", find_tmp, hit);
    ck_assert_msg(hit[0] == '\0', "temporary file '%s' left under %s", hit, dir);
}

/* The two files have the same bytes. */
static int same_bytes(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *ta = slurp(a, &la), *tb = slurp(b, &lb);
    ck_assert_msg(ta != NULL, "cannot read %s", a);
    ck_assert_msg(tb != NULL, "cannot read %s", b);
    int same = la == lb && memcmp(ta, tb, la) == 0;
    free(ta);
    free(tb);
    return same;
}

/* ------------------------------------------------------------------------- */
/* Text                                                                       */

/* text has a line equal to line (without its '\n'). */
static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len == n && memcmp(p, line, n) == 0)
            return 1;
        p = nl ? nl + 1 : NULL;
    }
    return 0;
}

/* text has a line starting with prefix. */
static int has_line_prefix(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *p = text; p && *p;) {
        if (strncmp(p, prefix, n) == 0)
            return 1;
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : NULL;
    }
    return 0;
}

static size_t count_char(const char *s, char c)
{
    size_t k = 0;
    for (; *s; s++)
        k += (*s == c);
    return k;
}

/* word occurs in text, not as part of a longer identifier. */
static int has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        int left_ok = p == text || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z'));
        char r = p[n];
        int right_ok = !(r == '_' || (r >= 'a' && r <= 'z'));
        if (left_ok && right_ok)
            return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Running the binary                                                         */

typedef struct argv_list {
    const char *v[MAX_ARGS + 1];
    int n;
} argv_list;

/* Append the arguments up to END. */
static void args_add(argv_list *a, ...)
{
    va_list ap;
    va_start(ap, a);
    for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *)) {
        ck_assert_msg(a->n < MAX_ARGS, "too many arguments");
        a->v[a->n++] = s;
    }
    va_end(ap);
    a->v[a->n] = NULL;
}

/* The small valid run every case starts from: 2D dam break, 200 particles,
 * 2 frames of 0.025 s, writing to out. */
static void args_small_run(argv_list *a, const char *out)
{
    a->n = 0;
    args_add(a, "run", "--solver", "muller", "--scene", "dam_break", "--dim", "2", "--spacing", "0.025",
             "--t-end", "0.05", "--frames", "2", "--out", out, "--quiet", END);
}

typedef struct cli_result {
    int code;    /* exit status, or -1 if killed by a signal */
    int sig;     /* the signal, if killed */
    char *out;   /* stdout */
    char *err;   /* stderr */
} cli_result;

static void cli_free(cli_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* Run PFB_BIN with the arguments in a, cwd <tmp>/w, output captured. */
static cli_result cli_run(const argv_list *a)
{
    char out_path[PATH_LEN], err_path[PATH_LEN];
    fmt_path(out_path, sizeof out_path, "%s/cli.stdout", tmp_dir);
    fmt_path(err_path, sizeof err_path, "%s/cli.stderr", tmp_dir);
    char *argv[MAX_ARGS + 2];
    argv[0] = (char *)PFB_BIN;
    for (int i = 0; i < a->n; i++)
        argv[i + 1] = (char *)a->v[i];
    argv[a->n + 1] = NULL;

    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        /* only async-signal-safe calls until exec */
        int in = open("/dev/null", O_RDONLY);
        int fo = child_stdout_full ? open("/dev/full", O_WRONLY) : open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || fo < 0 || fe < 0 || dup2(in, 0) < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0 ||
            chdir(work_dir) != 0)
            _exit(126);
        if (child_fsize) {
            struct rlimit rl = {child_fsize, child_fsize};
            signal(SIGXFSZ, SIG_IGN); /* kept across exec */
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
                _exit(126);
        }
        if (child_as) {
            struct rlimit rl = {child_as, child_as};
            if (setrlimit(RLIMIT_AS, &rl) != 0)
                _exit(126);
        }
        execv(PFB_BIN, argv);
        _exit(127);
    }
    int status = 0;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    ck_assert_msg(w == pid, "waitpid: %s", strerror(errno));

    cli_result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    r.out = slurp(out_path, NULL);
    r.err = slurp(err_path, NULL);
    ck_assert(r.out != NULL && r.err != NULL);
    ck_assert_msg(r.code != 126 && r.code != 127, "could not start %s (status %d)", PFB_BIN, r.code);
    ck_assert_msg(r.sig == 0, "%s killed by signal %d; stderr:\n%s", PFB_BIN, r.sig, r.err);
    return r;
}

/* The run exited with want; on a mismatch the message shows stderr. */
static void expect_code(const cli_result *r, int want)
{
    ck_assert_msg(r->code == want, "exit status %d, expected %d; stderr:\n%s", r->code, want, r->err);
}

/* Bad input: status 1, nothing on stdout, exactly one line on stderr that
 * contains every needle (the bad value, the suggestion...) and says what is
 * valid, and the work directory is exactly as it was before (so --out was not
 * created, or an existing --out is still empty). */
static void expect_bad(const argv_list *a, ...)
{
    char *before = tree_listing(work_dir);
    cli_result r = cli_run(a);
    expect_code(&r, 1);
    ck_assert_msg(r.out[0] == '\0', "bad input printed on stdout:\n%s", r.out);
    size_t len = strlen(r.err);
    ck_assert_msg(len > 0 && r.err[len - 1] == '\n' && count_char(r.err, '\n') == 1,
                  "stderr is not exactly one line:\n%s", r.err);
    ck_assert_msg(strstr(r.err, "valid") || strstr(r.err, "did you mean"),
                  "stderr does not say what is valid: %s", r.err);
    va_list ap;
    va_start(ap, a);
    for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *))
        ck_assert_msg(strstr(r.err, s) != NULL, "stderr lacks \"%s\": %s", s, r.err);
    va_end(ap);
    char *after = tree_listing(work_dir);
    ck_assert_msg(strcmp(before, after) == 0, "bad input changed the work directory.\nbefore:\n%s\nafter:\n%s",
                  before, after);
    free(before);
    free(after);
    cli_free(&r);
}

/* ------------------------------------------------------------------------- */
/* Bad input: one line, status 1, nothing written                             */

/* A misspelt solver name is rejected before anything is written, and the
 * message proposes the real name. */
START_TEST(test_bad_solver)
{
    char out[PATH_LEN];
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "mulle", "--scene", "dam_break", "--out", wpath(out, sizeof out, "out"),
             "--quiet", END);
    expect_bad(&a, "'mulle'", "'muller'", END);
}
END_TEST

/* A misspelt scene name: same contract, suggestion 'dam_break'. */
START_TEST(test_bad_scene)
{
    char out[PATH_LEN];
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "muller", "--scene", "dambreak", "--out", wpath(out, sizeof out, "out"),
             "--quiet", END);
    expect_bad(&a, "'dambreak'", "did you mean 'dam_break'", END);
}
END_TEST

/* A misspelt or missing experiment name: same contract (expect_bad: exit 1, one
 * line, nothing written), the suggestion and every registered experiment named. */
START_TEST(test_bad_experiment)
{
    char out[PATH_LEN];
    argv_list a = {.n = 0};
    args_add(&a, "exp", "validaton", "--quick", "--out", wpath(out, sizeof out, "out"), END);
    expect_bad(&a, "'validaton'", "did you mean 'validation'", "calibrate", "properties", END);
    argv_list b = {.n = 0};
    args_add(&b, "exp", "--quick", "--out", wpath(out, sizeof out, "out"), END);
    expect_bad(&b, "missing experiment name", "volume", "snapshots", "validation", "reference", END);
    /* the continuum reference's directory is the validation's only */
    argv_list c = {.n = 0};
    args_add(&c, "exp", "volume", "--quick", "--reference", "data/reference", "--out", wpath(out, sizeof out, "out"),
             END);
    expect_bad(&c, "--reference is read only by the validation experiment, not 'volume'", END);
    /* the hydrostatic case's seeds: the validation's only, a count from 1 to 64 */
    argv_list s = {.n = 0};
    args_add(&s, "exp", "volume", "--quick", "--seeds", "2", "--out", wpath(out, sizeof out, "out"), END);
    expect_bad(&s, "--seeds is read only by the validation experiment, not 'volume'", END);
    argv_list s0 = {.n = 0};
    args_add(&s0, "exp", "validation", "--quick", "--seeds", "0", "--out", wpath(out, sizeof out, "out"), END);
    expect_bad(&s0, "--seeds '0'", "valid: 1 to 64", END);
    argv_list sx = {.n = 0};
    args_add(&sx, "exp", "validation", "--quick", "--seeds", "3x", "--out", wpath(out, sizeof out, "out"), END);
    expect_bad(&sx, "--seeds '3x'", "valid: 1 to 64", END);
    /* a reference directory without the reference: named, nothing written */
    char fl[PATH_LEN], ref[PATH_LEN];
    write_text(wpath(fl, sizeof fl, "fluid.ini"),
               "[reference]\nlength = 0.5\ngravity = 9.81\ndensity = 1000\nRe = 100\nMa = 0.1\nBo = 33700\n");
    argv_list d = {.n = 0};
    args_add(&d, "exp", "validation", "--quick", "--solvers", "muller", "--fluid", fl, "--reference",
             wpath(ref, sizeof ref, "noref"), "--out", wpath(out, sizeof out, "out"), END);
    expect_bad(&d, "noref/reference_dam_break_slip.csv' is missing", "make reference", END);
}
END_TEST

/* --set with a key no table knows: 'viscosty' is close enough to get a
 * suggestion; 'k_neer' is not, and the message still points at the valid
 * names.  Both are caught before the output directory exists. */
START_TEST(test_bad_set_unknown_key)
{
    char out[PATH_LEN];
    argv_list a;
    args_small_run(&a, wpath(out, sizeof out, "out"));
    args_add(&a, "--set", "viscosty=0.1", END);
    expect_bad(&a, "'viscosty'", "did you mean 'viscosity'", END);

    args_small_run(&a, out);
    args_add(&a, "--set", "k_neer=1", END);
    expect_bad(&a, "'k_neer'", END);
}
END_TEST

/* Values outside their range or not in the list of choices: the message quotes
 * the value, names the parameter and gives the valid range or words.
 * (viscosity = -2: -1 may serve as an "automatic" sentinel, -2 is below any
 * range the solver declares.) */
START_TEST(test_bad_out_of_range)
{
    char out[PATH_LEN];
    argv_list a;
    args_small_run(&a, wpath(out, sizeof out, "out"));
    args_add(&a, "--set", "viscosity=-2", END);
    expect_bad(&a, "'-2'", "'viscosity'", "out of range", END);

    args_small_run(&a, out);
    args_add(&a, "--set", "surface_tension=-1", END);
    expect_bad(&a, "'-1'", "'surface_tension'", "out of range", END);

    args_small_run(&a, out);
    args_add(&a, "--dim", "4", END);
    expect_bad(&a, "'4'", "'dim'", "2 to 3", END);

    args_small_run(&a, out);
    args_add(&a, "--snapshots", "xml", END);
    expect_bad(&a, "'xml'", "'snapshots'", "csv, vtp, none", END);
}
END_TEST

/* A shortcut option whose value is not a number. */
START_TEST(test_bad_not_a_number)
{
    char out[PATH_LEN];
    argv_list a;
    args_small_run(&a, wpath(out, sizeof out, "out"));
    args_add(&a, "--dt", "abc", END);
    expect_bad(&a, "'abc'", "'dt'", "not a number", END);
}
END_TEST

/* An INI file with a line that is neither a section nor key = value: the
 * message names the file and the line number. */
START_TEST(test_bad_ini_malformed)
{
    char out[PATH_LEN], ini[PATH_LEN];
    write_text(wpath(ini, sizeof ini, "bad.ini"), "[run]\nframes = 1\nthis line has no equals sign\n");
    argv_list a;
    args_small_run(&a, wpath(out, sizeof out, "out"));
    args_add(&a, "--config", ini, END);
    expect_bad(&a, ini, "line 3", "malformed", END);
}
END_TEST

/* An INI section that is neither [run], [scene] nor a solver's name. */
START_TEST(test_bad_ini_unknown_section)
{
    char out[PATH_LEN], ini[PATH_LEN];
    write_text(wpath(ini, sizeof ini, "sec.ini"), "[run]\nframes = 1\n\n[sceen]\ngravity = 1\n");
    argv_list a;
    args_small_run(&a, wpath(out, sizeof out, "out"));
    args_add(&a, "--config", ini, END);
    expect_bad(&a, ini, "line 5", "[sceen]", "[scene]", END);
}
END_TEST

/* An unknown key in a known INI section: file, line, key and suggestion. */
START_TEST(test_bad_ini_unknown_key)
{
    char out[PATH_LEN], ini[PATH_LEN];
    write_text(wpath(ini, sizeof ini, "key.ini"), "; presets\n[muller]\nviscosity = 0.5\nviscosty = 0.1\n");
    argv_list a;
    args_small_run(&a, wpath(out, sizeof out, "out"));
    args_add(&a, "--config", ini, END);
    expect_bad(&a, ini, "line 4", "'viscosty'", "did you mean 'viscosity'", END);
}
END_TEST

/* --config naming a file that does not exist. */
START_TEST(test_bad_config_missing)
{
    char out[PATH_LEN], ini[PATH_LEN];
    argv_list a;
    args_small_run(&a, wpath(out, sizeof out, "out"));
    args_add(&a, "--config", wpath(ini, sizeof ini, "nothere.ini"), END);
    expect_bad(&a, ini, strerror(ENOENT), END);
}
END_TEST

/* An --out directory that cannot be created because its parent is a regular
 * file (ENOTDIR: unlike permission bits this also stops root), and an --out
 * that is itself a regular file. */
START_TEST(test_bad_out_unwritable)
{
    char afile[PATH_LEN], out[PATH_LEN];
    write_text(wpath(afile, sizeof afile, "afile"), "not a directory\n");
    argv_list a;
    args_small_run(&a, wpath(out, sizeof out, "afile/out"));
    expect_bad(&a, "afile/out", strerror(ENOTDIR), END);

    args_small_run(&a, afile);
    expect_bad(&a, afile, "not a directory", END);
}
END_TEST

/* A misspelt option is not silently ignored; the nearest option is proposed. */
START_TEST(test_bad_option)
{
    char out[PATH_LEN];
    argv_list a;
    args_small_run(&a, wpath(out, sizeof out, "out"));
    args_add(&a, "--spacng", "0.02", END);
    expect_bad(&a, "'--spacng'", "'--spacing'", END);
}
END_TEST

/* A misspelt command. */
START_TEST(test_bad_command)
{
    argv_list a = {.n = 0};
    args_add(&a, "runn", "--solver", "muller", END);
    expect_bad(&a, "'runn'", "'run'", END);
}
END_TEST

/* A scene with no particles at the given spacing (drop of radius 0.1 at
 * spacing 1): rejected in the set-up, which runs before the output directory
 * is created. */
START_TEST(test_bad_scene_too_coarse)
{
    char out[PATH_LEN];
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "muller", "--scene", "drop", "--spacing", "1", "--out",
             wpath(out, sizeof out, "out"), "--quiet", END);
    expect_bad(&a, "spacing 1", "drop", END);
}
END_TEST

/* Steps (issue 35): a step of 1e-300 s (the frame would need 3e298 steps, an
 * integer overflow that once ran it at 1/30 s) and a run of 1e9 steps are
 * refused, naming the value and the limit; a dt and a substep count that
 * disagree are refused; nothing is written. */
START_TEST(test_bad_steps)
{
    char out[PATH_LEN];
    wpath(out, sizeof out, "out");
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "muller", "--scene", "pool", "--set", "run.dt=1e-300", "--t-end", "1", "--out",
             out, "--quiet", END);
    expect_bad(&a, "dt 1e-300", "1000000000 steps per frame", END);
    a.n = 0;
    args_add(&a, "run", "--solver", "muller", "--scene", "pool", "--dt", "1e-12", "--t-end", "0.001", "--out", out,
             "--quiet", END);
    expect_bad(&a, "1e+09 steps", "10000000", "--force", END);
    /* the longest duration (1e6 s) at 30 frames per second: 3e7 frames of one
     * step at least, past the limit: no count of frames or steps can overflow */
    a.n = 0;
    args_add(&a, "run", "--solver", "muller", "--scene", "pool", "--t-end", "1e6", "--out", out, "--quiet", END);
    expect_bad(&a, "30000000 frames", "at most 10000000", END);
    a.n = 0;
    args_add(&a, "run", "--solver", "muller", "--scene", "pool", "--dt", "0.001", "--substeps", "10", "--t-end", "0.05",
             "--out", out, "--quiet", END);
    expect_bad(&a, "dt 0.001", "substeps 10", END);
}
END_TEST

/* Memory (issue 35): a lattice whose particles would need more than the
 * memory a run may use (PFB_MEMORY here, 1 GB; the kernel's MemAvailable
 * otherwise) is refused before it is allocated, with the count, the estimate
 * (mao_yang's 5600 B per particle in 3D: 4.8e5 particles at spacing 0.004 in
 * the dam break's 0.0312 m^3 of lattice) and the limit; a PFB_MEMORY that is
 * not a number of bytes is refused too. */
START_TEST(test_bad_memory)
{
    char out[PATH_LEN];
    wpath(out, sizeof out, "out");
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "mao_yang", "--scene", "dam_break", "--dim", "3", "--spacing", "0.004", "--out",
             out, "--quiet", END);
    setenv("PFB_MEMORY", "1e9", 1);
    expect_bad(&a, "spacing 0.004", "4.8e+05 particles", "5600 bytes", "1 GB", END);
    setenv("PFB_MEMORY", "abc", 1);
    expect_bad(&a, "PFB_MEMORY 'abc'", END);
    unsetenv("PFB_MEMORY");
}
END_TEST

/* A periodic scene whose positions would never be wrapped (no sorts), and a
 * spacing that does not divide its box: one line each, naming the value. */
START_TEST(test_bad_periodic)
{
    char out[PATH_LEN];
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "muller", "--scene", "shear_wave", "--set", "run.sort_every=0", "--out",
             wpath(out, sizeof out, "out"), "--quiet", END);
    expect_bad(&a, "sort_every = 0", "sort_every >= 1", END);
    argv_list b = {.n = 0};
    args_add(&b, "run", "--solver", "clavet", "--scene", "shear_wave", "--spacing", "0.003", "--out",
             wpath(out, sizeof out, "out"), "--quiet", END);
    expect_bad(&b, "spacing 0.003", "whole number", END);
    argv_list d = {.n = 0}; /* clavet's jacobi rows take the minimum image axis by axis */
    args_add(&d, "run", "--solver", "clavet", "--scene", "shear_wave", "--set", "scene.shear_rate=2", "--set",
             "solver.relaxation=jacobi", "--out", wpath(out, sizeof out, "out"), "--quiet", END);
    expect_bad(&d, "jacobi", "sheared box", "relaxation = sequential", END);
}
END_TEST

/* The reference fluid (scenes/fluid.ini, read by exp calibrate): a missing,
 * negative or non-finite target is one line naming the key and what is valid,
 * status 1, and no output directory. */
START_TEST(test_bad_fluid)
{
    static const struct {
        const char *text, *want1, *want2;
    } cases[] = {
        {"[reference]\nlength = 0.5\ngravity = 9.81\ndensity = 1000\nRe = 100\nMa = 0.1\n", "no 'Bo'",
         "Bond number"},
        {"[reference]\nlength = 0.5\ngravity = 9.81\ndensity = 1000\nRe = -100\nMa = 0.1\nBo = 33700\n",
         "'-100'", "'Re'"},
        {"[reference]\nlength = 0.5\ngravity = 9.81\ndensity = 1000\nRe = 100\nMa = inf\nBo = 33700\n",
         "'inf'", "'Ma'"},
        {"[reference]\nlength = 0.5\ngravity = 9.81\ndensity = 1000\nRe = 100\nMa = 0.1\nBo = nan\n",
         "'nan'", "'Bo'"},
        {"[reference]\nlength = 0.5\ngravity = 9.81\ndensity = 1000\nRe = 100\nMa = 0.1\nBo = 1\nWe = 3\n",
         "'We'", "line 8"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char out[PATH_LEN], ini[PATH_LEN];
        write_text(wpath(ini, sizeof ini, "fluid.ini"), cases[c].text);
        argv_list a = {.n = 0};
        args_add(&a, "exp", "calibrate", "--quick", "--solvers", "muller", "--fluid", ini, "--out",
                 wpath(out, sizeof out, "out"), END);
        expect_bad(&a, cases[c].want1, cases[c].want2, END);
        ck_assert(!exists(out));
    }
}
END_TEST

/* Material presets: an unknown name or an unreadable file is refused, and the
 * calibration (which searches from the solvers' defaults) takes none. */
START_TEST(test_bad_preset)
{
    char out[PATH_LEN];
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "muller", "--scene", "pool", "--preset", "calibratd", "--out",
             wpath(out, sizeof out, "out"), "--quiet", END);
    expect_bad(&a, "'calibratd'", "calibrated, paper, none", END);
    argv_list b = {.n = 0};
    args_add(&b, "exp", "volume", "--quick", "--preset", "nowhere/calibrated.ini", "--out",
             wpath(out, sizeof out, "out"), END);
    expect_bad(&b, "'nowhere/calibrated.ini'", "readable", END);
    argv_list c = {.n = 0};
    args_add(&c, "exp", "calibrate", "--quick", "--preset", "paper", "--out", wpath(out, sizeof out, "out"), END);
    expect_bad(&c, "--preset 'paper'", "no --preset", END);
    ck_assert(!exists(out));
}
END_TEST

/* If --out already exists (empty), bad input, including errors found late in
 * the set-up, leaves it empty: nothing is written before the input is known
 * to be good. */
START_TEST(test_bad_existing_out_stays_empty)
{
    char out[PATH_LEN], ini[PATH_LEN];
    ck_assert_int_eq(mkdir(wpath(out, sizeof out, "out"), 0700), 0);
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "muller", "--scene", "drop", "--spacing", "1", "--out", out, "--quiet", END);
    expect_bad(&a, "spacing 1", END);

    args_small_run(&a, out);
    args_add(&a, "--set", "solver.viscosity=-2", END);
    expect_bad(&a, "'-2'", END);

    write_text(wpath(ini, sizeof ini, "k.ini"), "[scene]\ngravty = 1\n");
    args_small_run(&a, out);
    args_add(&a, "--config", ini, END);
    expect_bad(&a, ini, "line 2", "'gravty'", END);
    ck_assert(is_dir(out));
}
END_TEST

/* ------------------------------------------------------------------------- */
/* --help and list                                                            */

static void expect_usage(const argv_list *a, const char *start)
{
    cli_result r = cli_run(a);
    expect_code(&r, 0);
    ck_assert_msg(strncmp(r.out, start, strlen(start)) == 0, "stdout does not start with '%s':\n%s", start, r.out);
    ck_assert_msg(r.err[0] == '\0', "--help wrote on stderr:\n%s", r.err);
    cli_free(&r);
}

/* --help (and -h) on the main command, run and list exits 0 with the usage on
 * stdout, so `pfbench run --help | less` works. */
START_TEST(test_help)
{
    argv_list a = {.n = 0};
    args_add(&a, "--help", END);
    expect_usage(&a, "usage: pfbench <command>");
    a.n = 0;
    args_add(&a, "-h", END);
    expect_usage(&a, "usage: pfbench <command>");
    a.n = 0;
    args_add(&a, "run", "--help", END);
    expect_usage(&a, "usage: pfbench run ");
    a.n = 0;
    args_add(&a, "run", "--solver", "muller", "-h", END);
    expect_usage(&a, "usage: pfbench run ");
    a.n = 0;
    args_add(&a, "list", "--help", END);
    expect_usage(&a, "usage: pfbench list");
}
END_TEST

/* The names a help text gives after `label` (at a line's start, after its
 * indentation): the comma-separated words of that line and of the lines
 * indented under it, in order, into names (at most max); their count. */
static size_t help_names(const char *text, const char *label, char names[][64], size_t max)
{
    const char *p = strstr(text, label);
    ck_assert_msg(p != NULL, "the help has no '%s':\n%s", label, text);
    p += strlen(label);
    size_t n = 0;
    for (;;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == '\n') { /* a continuation is a line that starts with spaces */
            if (p[1] != ' ')
                break;
            p++;
            continue;
        }
        if (*p == '\0' || *p == '(' || *p == '\'')
            break;
        size_t len = strcspn(p, ", \n");
        ck_assert(n < max && len < 64);
        memcpy(names[n], p, len);
        names[n][len] = '\0';
        n++;
        p += len;
    }
    return n;
}

/* A registry's i-th name, NULL past its end. */
typedef const char *(*name_at_fn)(size_t i);
static const char *experiment_at(size_t i)
{
    return pfb_experiments[i] ? pfb_experiments[i]->name : NULL;
}
static const char *solver_at(size_t i)
{
    return pfb_solvers[i] ? pfb_solvers[i]->name : NULL;
}
static const char *scene_at(size_t i)
{
    return pfb_scenes[i] ? pfb_scenes[i]->name : NULL;
}

/* The registry's names, in order, are exactly those the help text gives. */
static void expect_registry_names(const char *text, const char *label, name_at_fn at)
{
    char names[64][64];
    const size_t n = help_names(text, label, names, 64);
    size_t k = 0;
    for (; at(k); k++) {
        ck_assert_msg(k < n, "'%s' lists %zu names; the registry has '%s' more", label, n, at(k));
        ck_assert_msg(!strcmp(names[k], at(k)), "'%s' name %zu is '%s'; the registry's is '%s'", label, k, names[k],
                      at(k));
    }
    ck_assert_msg(k == n, "'%s' lists %zu names; the registry has %zu", label, n, k);
}

/* `pfbench --help` and `pfbench exp --help` name every experiment, solver and
 * scene of the registries (experiments/common.c, solvers/registry.c,
 * core/scene.c) and nothing else, in the registries' order; `pfbench list`
 * describes each of them. */
START_TEST(test_help_matches_registry)
{
    argv_list a = {.n = 0};
    args_add(&a, "--help", END);
    cli_result r = cli_run(&a);
    expect_code(&r, 0);
    expect_registry_names(r.out, "\nexperiments:", experiment_at);
    expect_registry_names(r.out, "\nsolvers:", solver_at);
    expect_registry_names(r.out, "\nscenes:", scene_at);
    cli_free(&r);
    a.n = 0;
    args_add(&a, "exp", "--help", END);
    r = cli_run(&a);
    expect_code(&r, 0);
    expect_registry_names(r.out, "\n  NAME", experiment_at);
    cli_free(&r);
    a.n = 0;
    args_add(&a, "list", END);
    r = cli_run(&a);
    expect_code(&r, 0);
    const name_at_fn regs[] = {experiment_at, solver_at, scene_at};
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; regs[k](i); i++)
            ck_assert_msg(has_word(r.out, regs[k](i)), "pfbench list does not describe '%s'", regs[k](i));
    cli_free(&r);
}
END_TEST

/* `pfbench list` names the solver, every scene and the solver's parameters. */
START_TEST(test_list)
{
    argv_list a = {.n = 0};
    args_add(&a, "list", END);
    cli_result r = cli_run(&a);
    expect_code(&r, 0);
    const char *words[] = {"muller", "pool", "dam_break", "drop", "viscosity", "surface_tension"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        ck_assert_msg(has_word(r.out, words[i]), "pfbench list does not mention '%s':\n%s", words[i], r.out);
    ck_assert_msg(r.err[0] == '\0', "pfbench list wrote on stderr:\n%s", r.err);
    cli_free(&r);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Successful runs                                                            */

#define SERIES_HEADER                                                                                          \
    "frame,t,n,mass,ke,pe,px,py,pz,lx,ly,lz,comx,comy,comz,xmin,xmax,ymin,ymax,zmin,zmax,volume_rel,"          \
    "density_err_mean,density_err_max"

/* Run a and expect success with nothing on stderr (--quiet). */
static void run_ok(const argv_list *a)
{
    cli_result r = cli_run(a);
    expect_code(&r, 0);
    ck_assert_msg(r.err[0] == '\0', "a --quiet run wrote on stderr:\n%s", r.err);
    cli_free(&r);
}

/* DIR/run.meta as text (free it). */
static char *read_meta(const char *dir)
{
    char path[PATH_LEN];
    fmt_path(path, sizeof path, "%s/run.meta", dir);
    char *meta = slurp(path, NULL);
    ck_assert_msg(meta != NULL, "no %s", path);
    return meta;
}

static void frame_file(char *buf, size_t len, const char *dir, int frame, const char *ext)
{
    fmt_path(buf, len, "%s/frames/frame_%05d.%s", dir, frame, ext);
}

/* The documented happy path: series.csv with the fixed columns and one row per
 * frame (frame 0 the initial state), run.meta with provenance and every
 * parameter, one CSV snapshot per frame, and no temporary files left behind. */
START_TEST(test_run_happy_path)
{
    char out[PATH_LEN], path[PATH_LEN];
    argv_list a;
    args_small_run(&a, wpath(out, sizeof out, "out"));
    run_ok(&a);

    fmt_path(path, sizeof path, "%s/series.csv", out);
    char *series = slurp(path, NULL);
    ck_assert_msg(series != NULL, "no %s", path);
    size_t hl = strlen(SERIES_HEADER);
    ck_assert_msg(strncmp(series, SERIES_HEADER, hl) == 0 && (series[hl] == '\n' || series[hl] == ','),
                  "series.csv header is wrong:\n%.400s", series);
    ck_assert_int_eq(count_char(series, '\n'), 4);
    const char *row = strchr(series, '\n') + 1;
    for (int f = 0; f <= 2; f++) {
        char lead[16];
        snprintf(lead, sizeof lead, "%d,", f);
        ck_assert_msg(strncmp(row, lead, strlen(lead)) == 0, "row %d does not start with '%s': %.80s", f, lead, row);
        const char *n_field = strchr(row + strlen(lead), ',') + 1; /* after frame and t */
        ck_assert_msg(strncmp(n_field, "200,", 4) == 0, "row %d does not have n = 200: %.80s", f, row);
        row = strchr(row, '\n') + 1;
    }
    free(series);

    char *meta = read_meta(out);
    const char *lines[] = {"solver = muller", "scene = dam_break", "dim = 2", "status = ok", "n_particles = 200",
                           "frames = 2", "frames_done = 2"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        ck_assert_msg(has_line(meta, lines[i]), "run.meta lacks the line '%s':\n%s", lines[i], meta);
    const char *keys[] = {"dt = ", "spacing = ", "seed = ", "commit = ", "solver.viscosity = ", "run.spacing = ",
                          "scene.gravity = "};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        ck_assert_msg(has_line_prefix(meta, keys[i]), "run.meta lacks a line '%s...':\n%s", keys[i], meta);
    free(meta);

    for (int f = 0; f <= 2; f++) {
        frame_file(path, sizeof path, out, f, "csv");
        char *frame = slurp(path, NULL);
        ck_assert_msg(frame != NULL, "no %s", path);
        ck_assert_msg(strncmp(frame, "x,y,z,vx,vy,vz,mass", 19) == 0 && (frame[19] == '\n' || frame[19] == ','),
                      "%s header is wrong: %.100s", path, frame);
        ck_assert_int_eq(count_char(frame, '\n'), 201);
        free(frame);
    }
    frame_file(path, sizeof path, out, 3, "csv");
    ck_assert_msg(!exists(path), "%s written for a run of 2 frames", path);
    assert_no_tmp_files(out);
}
END_TEST

/* --snapshots vtp writes one VTK PolyData file per frame and a ParaView
 * collection frames.pvd that lists each of them; no CSV snapshots. */
START_TEST(test_run_vtp)
{
    char out[PATH_LEN], path[PATH_LEN];
    argv_list a;
    args_small_run(&a, wpath(out, sizeof out, "out"));
    args_add(&a, "--snapshots", "vtp", END);
    run_ok(&a);

    fmt_path(path, sizeof path, "%s/frames.pvd", out);
    char *pvd = slurp(path, NULL);
    ck_assert_msg(pvd != NULL, "no %s", path);
    for (int f = 0; f <= 2; f++) {
        frame_file(path, sizeof path, out, f, "vtp");
        char *vtp = slurp(path, NULL);
        ck_assert_msg(vtp != NULL, "no %s", path);
        ck_assert_msg(strncmp(vtp, "<?xml", 5) == 0 && strstr(vtp, "NumberOfPoints=\"200\"") != NULL,
                      "%s is not a PolyData file of 200 points", path);
        free(vtp);
        char ref[64];
        snprintf(ref, sizeof ref, "file=\"frames/frame_%05d.vtp\"", f);
        ck_assert_msg(strstr(pvd, ref) != NULL, "frames.pvd does not list %s:\n%s", ref, pvd);
        frame_file(path, sizeof path, out, f, "csv");
        ck_assert_msg(!exists(path), "%s written with --snapshots vtp", path);
    }
    ck_assert_msg(strstr(pvd, "frame_00003") == NULL, "frames.pvd lists a frame that was not run:\n%s", pvd);
    free(pvd);
    assert_no_tmp_files(out);
}
END_TEST

/* --snapshots none: series.csv and run.meta only, no frames directory. */
START_TEST(test_run_no_snapshots)
{
    char out[PATH_LEN], path[PATH_LEN];
    argv_list a;
    args_small_run(&a, wpath(out, sizeof out, "out"));
    args_add(&a, "--snapshots", "none", END);
    run_ok(&a);
    fmt_path(path, sizeof path, "%s/series.csv", out);
    ck_assert(exists(path));
    fmt_path(path, sizeof path, "%s/run.meta", out);
    ck_assert(exists(path));
    fmt_path(path, sizeof path, "%s/frames", out);
    ck_assert_msg(!exists(path), "%s exists with --snapshots none", path);
    fmt_path(path, sizeof path, "%s/frames.pvd", out);
    ck_assert(!exists(path));
    assert_no_tmp_files(out);
}
END_TEST

/* Values from the [run], [scene] and [muller] sections of --config reach the
 * run (recorded in run.meta), and the command line (--set, --frames) beats the
 * file wherever it appears on the line, while untouched INI values stay. */
START_TEST(test_run_config)
{
    char out[PATH_LEN], out2[PATH_LEN], ini[PATH_LEN], path[PATH_LEN];
    write_text(wpath(ini, sizeof ini, "presets.ini"), "; presets for the small dam break\n"
                                                      "[run]\n"
                                                      "frames = 1\n"
                                                      "\n"
                                                      "[scene]\n"
                                                      "gravity = 5\n"
                                                      "\n"
                                                      "[muller]\n"
                                                      "viscosity = 0.5\n"
                                                      "surface_tension = 0.05\n");
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "muller", "--scene", "dam_break", "--dim", "2", "--spacing", "0.025",
             "--t-end", "0.05", "--config", ini, "--out", wpath(out, sizeof out, "a"), "--quiet", END);
    run_ok(&a);
    char *meta = read_meta(out);
    const char *lines[] = {"run.frames = 1", "frames = 1", "scene.gravity = 5", "solver.viscosity = 0.5",
                           "solver.surface_tension = 0.05", "status = ok"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        ck_assert_msg(has_line(meta, lines[i]), "run.meta lacks the line '%s':\n%s", lines[i], meta);
    free(meta);
    fmt_path(path, sizeof path, "%s/series.csv", out);
    char *series = slurp(path, NULL);
    ck_assert(series != NULL);
    ck_assert_int_eq(count_char(series, '\n'), 3); /* header, frames 0 and 1 */
    free(series);

    /* the overrides come before --config on the line: order does not matter */
    a.n = 0;
    args_add(&a, "run", "--set", "viscosity=0.25", "--set", "scene.gravity=7", "--frames", "2", "--solver",
             "muller", "--scene", "dam_break", "--dim", "2", "--spacing", "0.025", "--t-end", "0.05", "--config",
             ini, "--out", wpath(out2, sizeof out2, "b"), "--quiet", END);
    run_ok(&a);
    meta = read_meta(out2);
    const char *lines2[] = {"run.frames = 2", "scene.gravity = 7", "solver.viscosity = 0.25",
                            "solver.surface_tension = 0.05"};
    for (size_t i = 0; i < sizeof lines2 / sizeof lines2[0]; i++)
        ck_assert_msg(has_line(meta, lines2[i]), "run.meta lacks the line '%s':\n%s", lines2[i], meta);
    free(meta);
}
END_TEST

/* A run that blows up (dt = 1/30 s at spacing 0.025 is far beyond the stable
 * step) is recorded, not a crash: exit status 3, a message naming
 * "unstable", complete files, and status = unstable: REASON in run.meta. */
START_TEST(test_run_unstable)
{
    char out[PATH_LEN], path[PATH_LEN];
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "muller", "--scene", "dam_break", "--dim", "2", "--spacing", "0.025",
             "--t-end", "1", "--dt", "0.05", "--out", wpath(out, sizeof out, "out"), "--quiet", END);
    cli_result r = cli_run(&a);
    expect_code(&r, 3);
    ck_assert_msg(strstr(r.err, "unstable") != NULL, "stderr does not name the blow-up: %s", r.err);
    cli_free(&r);
    char *meta = read_meta(out);
    ck_assert_msg(has_line_prefix(meta, "status = unstable: "), "run.meta lacks 'status = unstable: ...':\n%s",
                  meta);
    ck_assert_msg(!has_line(meta, "status = ok"), "run.meta says ok:\n%s", meta);
    free(meta);
    fmt_path(path, sizeof path, "%s/series.csv", out);
    ck_assert_msg(exists(path), "no series.csv after a blow-up");
    assert_no_tmp_files(out);
}
END_TEST

/* The blow-up rows of docs/failures.md from the command line, one per reason
 * (2D, spacing 0.025): one step of 1/30 s per frame is far beyond the stable
 * step (energy growth by the second frame; with the energy check off, the
 * falling drop's particles leave the domain), and a volume limit of 0.99 is
 * crossed by the dam break's first frames (the column compresses by 1.5%).
 * Each: exit 3, the reason on stderr and in run.meta, series.csv to the last
 * frame, no temporary.  (A non-finite state: test_contract's
 * test_blowup_inside_step.) */
START_TEST(test_blowup_reasons)
{
    static const struct {
        const char *scene, *set1, *set2, *substeps, *reason;
    } cases[] = {
        {"dam_break", "run.volume_limit=0", "run.energy_limit=10", "1", "energy growth: "},
        {"drop", "run.volume_limit=0", "run.energy_limit=1e12", "1", "escaped: particle "},
        {"dam_break", "run.volume_limit=0.99", "run.energy_limit=10", "0", "volume collapse: volume_rel "},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char out[PATH_LEN], path[PATH_LEN], name[32], want[96];
        snprintf(name, sizeof name, "blowup%zu", k);
        argv_list a = {.n = 0};
        args_add(&a, "run", "--solver", "muller", "--scene", cases[k].scene, "--dim", "2", "--spacing", "0.025",
                 "--t-end", "1", "--substeps", cases[k].substeps, "--set", cases[k].set1, "--set", cases[k].set2,
                 "--out", wpath(out, sizeof out, name), "--quiet", END);
        cli_result r = cli_run(&a);
        expect_code(&r, 3);
        snprintf(want, sizeof want, "pfbench: run stopped: unstable: %s", cases[k].reason);
        ck_assert_msg(count_char(r.err, '\n') == 1 && !strncmp(r.err, want, strlen(want)), "%s: %s", cases[k].reason,
                      r.err);
        cli_free(&r);
        char *meta = read_meta(out);
        snprintf(want, sizeof want, "status = unstable: %s", cases[k].reason);
        ck_assert_msg(has_line_prefix(meta, want), "run.meta:\n%s", meta);
        free(meta);
        fmt_path(path, sizeof path, "%s/series.csv", out);
        ck_assert(exists(path));
        assert_no_tmp_files(out);
    }
}
END_TEST

/* Out of memory (an allocation that fails, here under a 150 MB address-space
 * limit; the 3D dam break at spacing 0.006 needs more): exit 1, one line saying
 * "out of memory", and no run that looks complete (no series.csv; a run.meta,
 * if any, says error).  Not under AddressSanitizer, whose shadow memory alone
 * is beyond any such limit. */
#if defined(__SANITIZE_ADDRESS__)
#define PFB_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PFB_TEST_ASAN 1
#endif
#endif
START_TEST(test_out_of_memory)
{
#ifdef PFB_TEST_ASAN
    return;
#else
    char out[PATH_LEN], path[PATH_LEN];
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "mao_yang", "--scene", "dam_break", "--dim", "3", "--spacing", "0.006", "--t-end",
             "0.01", "--out", wpath(out, sizeof out, "oom"), "--quiet", END);
    child_as = 150u << 20;
    cli_result r = cli_run(&a);
    child_as = 0;
    expect_code(&r, 1);
    ck_assert_msg(count_char(r.err, '\n') == 1 && strstr(r.err, "out of memory"), "stderr:\n%s", r.err);
    cli_free(&r);
    fmt_path(path, sizeof path, "%s/series.csv", out);
    ck_assert(!exists(path));
    fmt_path(path, sizeof path, "%s/run.meta", out);
    if (exists(path)) {
        char *meta = read_meta(out);
        ck_assert_msg(has_line_prefix(meta, "status = error: "), "run.meta:\n%s", meta);
        free(meta);
    }
#endif
}
END_TEST

/* The energy limit holds at frame ends (core/run.h): a blow-up inside a frame of
 * nine steps (dt = 0.004 s, twice a stable step at spacing 0.025: 0.002 s runs the
 * second; the material pinned, --preset none, as the calibration may change) still
 * stops the run at the end of the first frame, t = 1/30 s, as energy growth. */
START_TEST(test_run_unstable_within_frame)
{
    char out[PATH_LEN];
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "muller", "--scene", "dam_break", "--dim", "2", "--spacing", "0.025",
             "--t-end", "1", "--dt", "0.004", "--preset", "none", "--out", wpath(out, sizeof out, "out"), "--quiet",
             END);
    cli_result r = cli_run(&a);
    expect_code(&r, 3);
    cli_free(&r);
    char *meta = read_meta(out);
    ck_assert_msg(has_line(meta, "substeps = 9"), "not nine steps per frame:\n%s", meta);
    ck_assert_msg(has_line_prefix(meta, "status = unstable: energy growth: ") && strstr(meta, "at t=0.0333333\n"),
                  "not energy growth at the first frame's end:\n%s", meta);
    free(meta);
}
END_TEST

/* Same seed and jitter: byte-identical series.csv and snapshots (the series
 * holds no wall times).  Another seed moves the jittered particles, so every
 * snapshot differs. */
START_TEST(test_run_deterministic)
{
    char dir[3][PATH_LEN], pa[PATH_LEN], pb[PATH_LEN];
    const char *seeds[3] = {"7", "7", "8"};
    const char *names[3] = {"s7a", "s7b", "s8"};
    for (int k = 0; k < 3; k++) {
        argv_list a;
        args_small_run(&a, wpath(dir[k], sizeof dir[k], names[k]));
        args_add(&a, "--seed", seeds[k], "--set", "run.jitter=0.1", END);
        run_ok(&a);
    }
    fmt_path(pa, sizeof pa, "%s/series.csv", dir[0]);
    fmt_path(pb, sizeof pb, "%s/series.csv", dir[1]);
    ck_assert_msg(same_bytes(pa, pb), "series.csv differs between two runs with seed 7");
    for (int f = 0; f <= 2; f++) {
        frame_file(pa, sizeof pa, dir[0], f, "csv");
        frame_file(pb, sizeof pb, dir[1], f, "csv");
        ck_assert_msg(same_bytes(pa, pb), "frame %d differs between two runs with seed 7", f);
        frame_file(pb, sizeof pb, dir[2], f, "csv");
        ck_assert_msg(!same_bytes(pa, pb), "frame %d is the same for seeds 7 and 8", f);
    }
}
END_TEST

static pid_t spawn_bin(const argv_list *a);
static int wait_exit(pid_t pid);

/* A run shares the cores: two 2-thread runs started at once (3D dam breaks,
 * muller's pair tasks and clavet's Jacobi relaxation, every parallel path forced
 * by run.threads) give the bits of the same run alone, whatever the schedule the
 * sharing makes (issue 48). */
START_TEST(test_run_beside_another)
{
    static const char *const solvers[][3] = {{"muller", "solver.simd=2", "m"},
                                             {"clavet", "solver.relaxation=jacobi", "c"}};
    for (int k = 0; k < 2; k++) {
        char dir[3][PATH_LEN], name[3][32], pa[PATH_LEN], pb[PATH_LEN];
        argv_list a[3];
        for (int r = 0; r < 3; r++) {
            snprintf(name[r], sizeof name[r], "%s%d", solvers[k][2], r);
            a[r].n = 0;
            args_add(&a[r], "run", "--solver", solvers[k][0], "--scene", "dam_break", "--dim", "3", "--spacing",
                     "0.04", "--t-end", "0.1", "--frames", "3", "--set", "run.threads=2", "--set", solvers[k][1],
                     "--out", wpath(dir[r], sizeof dir[r], name[r]), "--quiet", END);
        }
        run_ok(&a[0]);
        const pid_t p1 = spawn_bin(&a[1]), p2 = spawn_bin(&a[2]);
        const int s1 = wait_exit(p1), s2 = wait_exit(p2);
        ck_assert_msg(WIFEXITED(s1) && WEXITSTATUS(s1) == 0 && WIFEXITED(s2) && WEXITSTATUS(s2) == 0,
                      "%s: the runs side by side ended with %d and %d", solvers[k][0], s1, s2);
        for (int r = 1; r < 3; r++) {
            fmt_path(pa, sizeof pa, "%s/series.csv", dir[0]);
            fmt_path(pb, sizeof pb, "%s/series.csv", dir[r]);
            ck_assert_msg(same_bytes(pa, pb), "%s: series.csv of a run beside another differs from alone",
                          solvers[k][0]);
            frame_file(pa, sizeof pa, dir[0], 3, "csv");
            frame_file(pb, sizeof pb, dir[r], 3, "csv");
            ck_assert_msg(same_bytes(pa, pb), "%s: frame 3 of a run beside another differs from alone",
                          solvers[k][0]);
        }
    }
}
END_TEST

/* pfbench's waiting policy (cli/main.c): OMP_WAIT_POLICY=passive unless the
 * user sets it, from the process's start.  The OpenMP runtime prints its
 * settings when loaded (OMP_DISPLAY_ENV=verbose): GNU OpenMP's spin count is
 * 0 under passive, 300000 when the policy is unset and 3e10 under active;
 * the last print is the process that runs.  A runtime that prints no spin
 * count (LLVM's) is checked by its OMP_WAIT_POLICY line, if it prints one. */
static const char *last_line_with(const char *text, const char *key)
{
    const char *last = NULL;
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key))
        last = p;
    return last;
}

START_TEST(test_wait_policy_default)
{
    unsetenv("OMP_WAIT_POLICY"); /* (this test's own process: Check forks one per test) */
    setenv("OMP_DISPLAY_ENV", "verbose", 1);
    argv_list a = {.n = 0};
    args_add(&a, "version", END);
    cli_result r = cli_run(&a);
    expect_code(&r, 0);
    const char *spin = last_line_with(r.err, "GOMP_SPINCOUNT");
    const char *pol = last_line_with(r.err, "OMP_WAIT_POLICY");
    if (spin)
        ck_assert_msg(!strncmp(spin, "GOMP_SPINCOUNT = '0'", 20), "the run's spin count is not passive's:\n%s", r.err);
    else if (pol)
        ck_assert_msg(strstr(pol, "PASSIVE") != NULL, "the run's waiting policy is not passive:\n%s", r.err);
    cli_free(&r);
    /* the user's choice stands */
    setenv("OMP_WAIT_POLICY", "active", 1);
    r = cli_run(&a);
    expect_code(&r, 0);
    spin = last_line_with(r.err, "GOMP_SPINCOUNT");
    if (spin)
        ck_assert_msg(strncmp(spin, "GOMP_SPINCOUNT = '0'", 20) != 0, "OMP_WAIT_POLICY=active was replaced:\n%s",
                      r.err);
    cli_free(&r);
}
END_TEST

/* bench step's lockstep options: half of the pair, or a path that is not a
 * FIFO, is bad input (one line naming it, nothing written). */
START_TEST(test_bad_lockstep)
{
    char f[PATH_LEN];
    write_text(wpath(f, sizeof f, "plain"), "x");
    argv_list a = {.n = 0};
    args_add(&a, "bench", "step", "--solver", "muller", "--dim", "2", "--n", "200", "--steps", "2", "--lockstep-in",
             f, END);
    expect_bad(&a, "--lockstep-out is missing", END);
    a.n = 0;
    args_add(&a, "bench", "step", "--solver", "muller", "--dim", "2", "--n", "200", "--steps", "2", "--lockstep-in",
             f, "--lockstep-out", f, END);
    expect_bad(&a, f, "is not a FIFO", END);
    /* turns of K steps: K from 1, and only with the pair of FIFOs */
    a.n = 0;
    args_add(&a, "bench", "step", "--solver", "muller", "--dim", "2", "--n", "200", "--steps", "2", "--lockstep-every",
             "3", END);
    expect_bad(&a, "--lockstep-every 3 needs --lockstep-in and --lockstep-out", END);
    a.n = 0;
    args_add(&a, "bench", "step", "--solver", "muller", "--dim", "2", "--n", "200", "--steps", "2", "--lockstep-every",
             "0", END);
    expect_bad(&a, "--lockstep-every", "0", END);
    /* the material preset: an unknown name is refused the same way */
    a.n = 0;
    args_add(&a, "bench", "step", "--solver", "muller", "--dim", "2", "--n", "200", "--steps", "2", "--preset", "bogus",
             END);
    expect_bad(&a, "unknown preset 'bogus'", END);
}
END_TEST

/* bench/lockstep.sh: two `bench step` runs taking turns print a line per round
 * and the median ratio (a positive number; its value is the machine's, not
 * checked); a partner refused at start stops the round at once, exit status 1,
 * the refusal shown (a hang would trip the test's time-out).  With --b-args B
 * runs another solver in turns of two steps, twice A's steps: as many turns. */
START_TEST(test_bench_lockstep)
{
    char root[PATH_LEN], cmd[6 * PATH_LEN], outp[PATH_LEN], errp[PATH_LEN];
    fmt_path(root, sizeof root, "%s", PFB_BIN);
    for (int k = 0; k < 2; k++) { /* <root>/bin/pfbench */
        char *slash = strrchr(root, '/');
        ck_assert(slash != NULL);
        *slash = '\0';
    }
    fmt_path(outp, sizeof outp, "%s/lockstep.out", tmp_dir);
    fmt_path(errp, sizeof errp, "%s/lockstep.err", tmp_dir);
    const char *args = "--solver muller --dim 2 --n 300 --steps 4";
    for (int run = 0; run < 3; run++) {
        const int bad = run == 1;
        snprintf(cmd, sizeof cmd, "cd '%s' && bash '%s/bench/lockstep.sh' --rounds 2 %s '%s' '%s' %s >'%s' 2>'%s'",
                 work_dir, root,
                 run == 1   ? "--set-b solver.bogus=1"
                 : run == 2 ? "--b-args '--solver miller_pearce --dim 2 --n 300 --warmup 4 --steps 8 --lockstep-every 2'"
                          : "",
                 PFB_BIN, PFB_BIN, args, outp, errp);
        const int st = system(cmd);
        char *out = slurp(outp, NULL), *err = slurp(errp, NULL);
        ck_assert(out != NULL && err != NULL);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == bad, "lockstep.sh status %d; stderr:\n%s", st, err);
        if (bad) {
            ck_assert_msg(strstr(err, "'bogus'") != NULL && strstr(err, "round 1 failed") != NULL, "%s", err);
        } else {
            ck_assert_msg(has_line_prefix(out, "1     a ") && has_line_prefix(out, "2     b "), "%s", out);
            const char *k = strstr(out, "ratio_median_b_over_a=");
            ck_assert_msg(k != NULL, "%s", out);
            const double r = strtod(k + strlen("ratio_median_b_over_a="), NULL);
            ck_assert_msg(r > 0 && isfinite(r), "%s", out);
        }
        free(out);
        free(err);
    }
}
END_TEST

/* ------------------------------------------------------------------------- */

/* Start PFB_BIN with the arguments in a (cwd <tmp>/w, stderr discarded). */
static pid_t spawn_bin(const argv_list *a)
{
    char *argv[MAX_ARGS + 2];
    argv[0] = (char *)PFB_BIN;
    for (int i = 0; i < a->n; i++)
        argv[i + 1] = (char *)a->v[i];
    argv[a->n + 1] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        int fe = open("/dev/null", O_WRONLY);
        if (fe < 0 || dup2(fe, 2) < 0 || chdir(work_dir) != 0)
            _exit(126);
        execv(PFB_BIN, argv);
        _exit(127);
    }
    return pid;
}

/* Wait (up to 6 s) for path to appear. */
static void wait_for(const char *path)
{
    for (int k = 0; k < 3000 && !exists(path); k++)
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    ck_assert_msg(exists(path), "the run wrote no %s in 6 s", path);
}

static int wait_exit(pid_t pid)
{
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return st;
}

/* Start the run of a, wait for path, send SIGTERM and expect exit 4. */
static void term_when(const argv_list *a, const char *path)
{
    pid_t pid = spawn_bin(a);
    wait_for(path);
    kill(pid, SIGTERM);
    const int st = wait_exit(pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 4, "status %d after SIGTERM (the run may have ended first)", st);
}

/* Write errors (issue 35).  A run whose files cannot be written (every file
 * limited to 8 KiB: frame 1's snapshot of the 200-particle dam break, about
 * 18 KiB, fails as on a full disk) stops with one line naming the file and the
 * error, exit 1; no series.csv, no temporary; run.meta says "error: cannot
 * write ..." (it is smaller than the limit).  A command whose standard output
 * fails (/dev/full) exits 1 with one line. */
START_TEST(test_write_errors)
{
    char out[PATH_LEN], path[PATH_LEN];
    argv_list a = {.n = 0};
    args_small_run(&a, wpath(out, sizeof out, "full"));
    child_fsize = 8192;
    cli_result r = cli_run(&a);
    child_fsize = 0;
    expect_code(&r, 1);
    ck_assert_msg(count_char(r.err, '\n') == 1 && strstr(r.err, "cannot write") && strstr(r.err, "File too large"),
                  "stderr:\n%s", r.err);
    cli_free(&r);
    fmt_path(path, sizeof path, "%s/series.csv", out);
    ck_assert(!exists(path));
    assert_no_tmp_files(out);
    char *meta = read_meta(out);
    ck_assert_msg(has_line_prefix(meta, "status = error: cannot write"), "run.meta:\n%s", meta);
    free(meta);
    /* the same directory, no fault: the run succeeds and nothing of the failure stays */
    r = cli_run(&a);
    expect_code(&r, 0);
    cli_free(&r);
    meta = read_meta(out);
    ck_assert_msg(has_line(meta, "status = ok"), "run.meta:\n%s", meta);
    free(meta);
    static const char *const cmds[][2] = {{"list", NULL}, {"version", NULL}, {"run", "--help"}};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        a.n = 0;
        args_add(&a, cmds[k][0], cmds[k][1], END);
        child_stdout_full = 1;
        r = cli_run(&a);
        child_stdout_full = 0;
        expect_code(&r, 1);
        ck_assert_msg(count_char(r.err, '\n') == 1 && strstr(r.err, "cannot write standard output"), "%s: %s",
                      cmds[k][0], r.err);
        cli_free(&r);
    }
}
END_TEST

/* An experiment whose run cannot write its files (every file limited to 4 KiB:
 * the quick volume experiment's 3D pool run has a longer series.csv): exit 1,
 * the last line of stderr names the file, no experiment file and no temporary
 * is written, and that run's run.meta says error. */
START_TEST(test_write_error_exp)
{
    static const char *files[] = {"volume_series.csv", "volume_substeps.csv", "volume_summary.csv", "manifest.csv"};
    char out[PATH_LEN], path[PATH_LEN];
    argv_list a = {.n = 0};
    args_add(&a, "exp", "volume", "--quick", "--solvers", "muller", "--out", wpath(out, sizeof out, "full"), END);
    child_fsize = 4096;
    cli_result r = cli_run(&a);
    child_fsize = 0;
    expect_code(&r, 1);
    const char *last = strstr(r.err, "pfbench: cannot write '");
    ck_assert_msg(last && strstr(last, "File too large") && count_char(last, '\n') == 1, "stderr:\n%s", r.err);
    cli_free(&r);
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        fmt_path(path, sizeof path, "%s/%s", out, files[f]);
        ck_assert_msg(!exists(path), "a failed experiment wrote %s", files[f]);
    }
    assert_no_tmp_files(out);
    fmt_path(path, sizeof path, "%s/runs/muller_pool_3d", out);
    char *meta = read_meta(path);
    ck_assert_msg(has_line_prefix(meta, "status = error: cannot write"), "run.meta:\n%s", meta);
    free(meta);
}
END_TEST

/* The output directory removed under a running run: the next frame's write
 * fails (the directory is not made again), exit 1; nothing is left (run.meta
 * cannot be written either). */
START_TEST(test_write_dir_vanished)
{
    char out[PATH_LEN], path[PATH_LEN];
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "muller", "--scene", "dam_break", "--dim", "2", "--spacing", "0.025", "--t-end",
             "6", "--out", wpath(out, sizeof out, "gone"), "--quiet", END);
    fmt_path(path, sizeof path, "%s/frames/frame_00005.csv", out);
    pid_t pid = spawn_bin(&a);
    wait_for(path);
    remove_tree(out);
    const int st = wait_exit(pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d after the directory was removed", st);
    ck_assert_msg(!exists(out), "%s made again", out);
}
END_TEST

/* A given dt that does not divide the frame is not replaced silently: the run
 * says, on one line, the step it takes (the frame's 1/36th for 0.0007 s of a
 * 0.025 s frame), which run.meta records.  --force lets a run of more steps
 * than the limit start (1.1e7 steps would take
 * minutes: it is stopped by SIGTERM once its first frame is written). */
START_TEST(test_run_dt_note_force)
{
    char out[PATH_LEN];
    wpath(out, sizeof out, "note");
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "muller", "--scene", "pool", "--dim", "2", "--dt", "0.0007", "--t-end", "0.05",
             "--out", out, "--quiet", END);
    cli_result r = cli_run(&a);
    expect_code(&r, 0);
    ck_assert_msg(count_char(r.err, '\n') == 1 && strstr(r.err, "dt 0.0007 s does not divide a frame of 0.025 s") &&
                      strstr(r.err, "0.000694444444 s (36 per frame"),
                  "stderr:\n%s", r.err);
    cli_free(&r);
    char *meta = read_meta(out);
    ck_assert_msg(has_line(meta, "substeps = 36"), "run.meta:\n%s", meta);
    free(meta);
    /* 1 frame of 1.1e7 steps: refused without --force (test_bad_steps), starts with it */
    wpath(out, sizeof out, "force");
    a.n = 0;
    args_add(&a, "run", "--solver", "muller", "--scene", "pool", "--dim", "2", "--dt", "1e-9", "--t-end", "0.011",
             "--out", out, "--quiet", "--force", END);
    char path[PATH_LEN];
    fmt_path(path, sizeof path, "%s/frames/frame_00000.csv", out);
    term_when(&a, path);
    meta = read_meta(out);
    ck_assert_msg(has_line(meta, "status = interrupted") && has_line(meta, "substeps = 11000000"), "run.meta:\n%s", meta);
    free(meta);
}
END_TEST

/* A real SIGTERM in the middle of a run: exit 4, its checkpoint,
 * series.partial.csv and run.meta (interrupted) and no series.csv; `run
 * --resume DIR` then ends it with the files of the run never stopped, byte for
 * byte (run.meta aside), and leaves no checkpoint; a resume with another
 * parameter is refused, naming it, nothing changed. */
START_TEST(test_run_sigterm_resume)
{
    char ref[PATH_LEN], out[PATH_LEN], path[PATH_LEN];
    wpath(ref, sizeof ref, "ref");
    wpath(out, sizeof out, "int");
    argv_list a = {.n = 0};
    args_add(&a, "run", "--solver", "muller", "--scene", "dam_break", "--dim", "2", "--spacing", "0.025", "--t-end",
             "6", "--out", ref, "--quiet", END);
    cli_result r = cli_run(&a);
    expect_code(&r, 0);
    cli_free(&r);
    a.v[12] = out; /* the same run into out, stopped by SIGTERM once frame 20 is written */
    fmt_path(path, sizeof path, "%s/frames/frame_00020.csv", out);
    term_when(&a, path);
    fmt_path(path, sizeof path, "%s/checkpoint.pfb", out);
    ck_assert(exists(path));
    fmt_path(path, sizeof path, "%s/series.partial.csv", out);
    ck_assert(exists(path));
    fmt_path(path, sizeof path, "%s/series.csv", out);
    ck_assert(!exists(path));
    char *meta = read_meta(out);
    ck_assert_msg(has_line(meta, "status = interrupted"), "run.meta:\n%s", meta);
    free(meta);
    /* another parameter: refused, naming it, nothing written */
    a.n = 0;
    args_add(&a, "run", "--resume", out, "--set", "solver.viscosity=0.5", "--quiet", END);
    expect_bad(&a, "solver.viscosity", END);
    a.n = 0;
    args_add(&a, "run", "--resume", out, "--quiet", END);
    r = cli_run(&a);
    expect_code(&r, 0);
    cli_free(&r);
    fmt_path(path, sizeof path, "%s/checkpoint.pfb", out);
    ck_assert(!exists(path));
    char *lr = tree_listing(ref), *lo = tree_listing(out);
    ck_assert_msg(!strcmp(lr, lo), "files:\n%s\nagainst:\n%s", lo, lr);
    free(lr);
    free(lo);
    fmt_path(path, sizeof path, "%s/series.csv", out);
    char rp[PATH_LEN];
    fmt_path(rp, sizeof rp, "%s/series.csv", ref);
    ck_assert(same_bytes(rp, path));
    for (int fr = 0; fr <= 180; fr += 20) {
        frame_file(rp, sizeof rp, ref, fr, "csv");
        frame_file(path, sizeof path, out, fr, "csv");
        ck_assert_msg(same_bytes(rp, path), "frame %d differs", fr);
    }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Plan, run, collect (issue 34)                                              */

/* The quick volume experiment of muller alone (14 small runs) into out, with
 * extra options. */
static void args_volume(argv_list *a, const char *out)
{
    a->n = 0;
    args_add(a, "exp", "volume", "--quick", "--solvers", "muller", "--out", out, END);
}

/* The ids of a plan's commands (the word after --only on each line). */
static size_t plan_ids(const char *plan, char ids[][128], size_t cap)
{
    size_t n = 0;
    for (const char *p = strstr(plan, " --only "); p && n < cap; p = strstr(p + 1, " --only ")) {
        p += strlen(" --only ");
        size_t k = strcspn(p, " \n");
        ck_assert(k < 128);
        memcpy(ids[n], p, k);
        ids[n++][k] = '\0';
    }
    return n;
}

/* Files a and b are the same but for the values of a column named
 * wall_seconds (a run's wall time, which no two runs share). */
static int same_but_wall(const char *a, const char *b)
{
    char *x = slurp(a, NULL), *y = slurp(b, NULL);
    ck_assert_msg(x && y, "cannot read %s or %s", a, b);
    int wall = -1, col = 0;
    for (const char *h = x; *h && *h != '\n'; h++) /* the header's wall_seconds column */
        if (*h == ',')
            col++;
        else if ((h == x || h[-1] == ',') && !strncmp(h, "wall_seconds", 12) && (h[12] == ',' || h[12] == '\n'))
            wall = col;
    int same = 1;
    const char *p = x, *q = y;
    while (*p && *q && same) {
        int c = 0;
        for (;;) { /* one line, cell by cell */
            size_t lp = strcspn(p, ",\n"), lq = strcspn(q, ",\n");
            if (c != wall && (lp != lq || memcmp(p, q, lp)))
                same = 0;
            const char ep = p[lp], eq = q[lq];
            p += lp + (ep != '\0');
            q += lq + (eq != '\0');
            if (ep != eq)
                same = 0;
            if (ep != ',' || !same)
                break;
            c++;
        }
    }
    same = same && !*p && !*q;
    free(x);
    free(y);
    return same;
}

/* --plan prints one self-contained command per run that is not current, and
 * nothing else, and writes nothing; --only ID makes that run and no
 * experiment file, after which the plan lists exactly the others; once all
 * are made, the plan is empty and a serial pass collects without running. */
START_TEST(test_exp_plan)
{
    char out[PATH_LEN], path[PATH_LEN];
    wpath(out, sizeof out, "vol");
    argv_list a;
    args_volume(&a, out);
    args_add(&a, "--plan", END);
    char *before = tree_listing(work_dir);
    cli_result r = cli_run(&a);
    expect_code(&r, 0);
    char *after = tree_listing(work_dir);
    ck_assert_msg(!strcmp(before, after), "--plan wrote files:\n%s", after);
    free(before);
    free(after);
    static char ids[64][128], ids2[64][128];
    const size_t n = plan_ids(r.out, ids, 64);
    ck_assert_uint_eq(n, 14); /* pool and dam break, 2D and 3D, and the 2D substep sweeps (5 each) */
    ck_assert_uint_eq(count_char(r.out, '\n'), n);
    char want[PATH_LEN];
    fmt_path(want, sizeof want, "%s exp volume --quick --solvers muller --out %s --only %s\n", PFB_BIN, out, ids[0]);
    ck_assert_msg(!strncmp(r.out, want, strlen(want)), "first command:\n%s\nwant:\n%s", r.out, want);
    cli_free(&r);

    args_volume(&a, out);
    args_add(&a, "--only", ids[3], END);
    r = cli_run(&a);
    expect_code(&r, 0);
    cli_free(&r);
    fmt_path(path, sizeof path, "%s/runs/%s/series.csv", out, ids[3]);
    ck_assert_msg(exists(path), "--only made no %s", path);
    fmt_path(path, sizeof path, "%s/volume_summary.csv", out);
    ck_assert_msg(!exists(path), "--only wrote the experiment's summary");

    args_volume(&a, out);
    args_add(&a, "--plan", END);
    r = cli_run(&a);
    expect_code(&r, 0);
    const size_t n2 = plan_ids(r.out, ids2, 64);
    ck_assert_uint_eq(n2, n - 1);
    for (size_t i = 0, k = 0; i < n; i++)
        if (i != 3)
            ck_assert_str_eq(ids2[k++], ids[i]);
    cli_free(&r);

    args_volume(&a, out); /* runs the other 13 and collects */
    r = cli_run(&a);
    expect_code(&r, 0);
    ck_assert_msg(strstr(r.err, ids[3]) && strstr(r.err, "current, skipped"), "stderr:\n%s", r.err);
    cli_free(&r);
    args_volume(&a, out);
    args_add(&a, "--plan", END);
    r = cli_run(&a);
    expect_code(&r, 0);
    ck_assert_msg(r.out[0] == '\0', "the plan after every run: %s", r.out);
    cli_free(&r);
    args_volume(&a, out); /* collecting again: nothing reruns */
    r = cli_run(&a);
    expect_code(&r, 0);
    ck_assert_msg(!strstr(r.err, " ok ("), "a current run ran again:\n%s", r.err);
    cli_free(&r);
}
END_TEST

/* The local pool: --jobs 2 and --jobs 1 give the serial experiment's files
 * byte for byte (all but the runs' wall times), and after it the plan is empty;
 * so does an experiment interrupted and invoked again. */
START_TEST(test_exp_pool_same_bytes)
{
    static const char *files[] = {"volume_series.csv", "volume_substeps.csv", "volume_summary.csv", "manifest.csv"};
    char ser[PATH_LEN], out[PATH_LEN], pa[PATH_LEN], pb[PATH_LEN];
    wpath(ser, sizeof ser, "serial");
    argv_list a;
    args_volume(&a, ser);
    cli_result r = cli_run(&a);
    expect_code(&r, 0);
    cli_free(&r);
    for (int jobs = 2; jobs >= 1; jobs--) {
        char name[32], j[16];
        snprintf(name, sizeof name, "jobs%d", jobs);
        snprintf(j, sizeof j, "%d", jobs);
        wpath(out, sizeof out, name);
        args_volume(&a, out);
        args_add(&a, "--jobs", j, END);
        r = cli_run(&a);
        expect_code(&r, 0);
        ck_assert_msg(strstr(r.err, "pool: volume round 1: 14 runs"), "stderr:\n%s", r.err);
        ck_assert_msg(!strstr(r.err, "round 2"), "a second round:\n%s", r.err);
        cli_free(&r);
        for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
            fmt_path(pa, sizeof pa, "%s/%s", ser, files[f]);
            fmt_path(pb, sizeof pb, "%s/%s", out, files[f]);
            ck_assert_msg(same_but_wall(pa, pb), "--jobs %d: %s differs from the serial one", jobs, files[f]);
        }
        args_volume(&a, out);
        args_add(&a, "--plan", END);
        r = cli_run(&a);
        expect_code(&r, 0);
        ck_assert_msg(r.out[0] == '\0', "--jobs %d left runs: %s", jobs, r.out);
        cli_free(&r);
    }
    /* interrupted by SIGTERM in its sixth run (docs/failures.md): exit 4, the
     * five runs before it intact (complete, status ok), the sixth's checkpoint,
     * no experiment file; the next invocation skips the five, resumes the sixth
     * and ends with the serial experiment's files */
    wpath(out, sizeof out, "interrupted");
    args_volume(&a, out);
    args_add(&a, "--plan", END);
    r = cli_run(&a);
    expect_code(&r, 0);
    static char ids[64][128];
    ck_assert_uint_eq(plan_ids(r.out, ids, 64), 14);
    cli_free(&r);
    args_volume(&a, out);
    fmt_path(pa, sizeof pa, "%s/runs/%s/series.csv.tmp", out, ids[5]);
    term_when(&a, pa);
    for (int k = 0; k < 6; k++) {
        fmt_path(pa, sizeof pa, "%s/runs/%s", out, ids[k]);
        char *meta = read_meta(pa);
        ck_assert_msg(has_line(meta, k < 5 ? "status = ok" : "status = interrupted"), "%s:\n%s", ids[k], meta);
        free(meta);
        fmt_path(pb, sizeof pb, "%s/%s", pa, k < 5 ? "series.csv" : "checkpoint.pfb");
        ck_assert_msg(exists(pb), "no %s", pb);
    }
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        fmt_path(pb, sizeof pb, "%s/%s", out, files[f]);
        ck_assert_msg(!exists(pb), "an interrupted experiment wrote %s", files[f]);
    }
    args_volume(&a, out);
    r = cli_run(&a);
    expect_code(&r, 0);
    ck_assert_msg(strstr(r.err, "resumed from its checkpoint") && strstr(r.err, "current, skipped"), "stderr:\n%s",
                  r.err);
    cli_free(&r);
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        fmt_path(pa, sizeof pa, "%s/%s", ser, files[f]);
        fmt_path(pb, sizeof pb, "%s/%s", out, files[f]);
        ck_assert_msg(same_but_wall(pa, pb), "resumed: %s differs from the serial one", files[f]);
    }
    /* the comparison can fail: a changed cell is seen */
    fmt_path(pa, sizeof pa, "%s/volume_summary.csv", ser);
    char *t = slurp(pa, NULL);
    ck_assert_ptr_nonnull(t);
    char *c = strstr(t, "\nmuller,pool,2,");
    ck_assert_ptr_nonnull(c);
    c[strlen("\nmuller,pool,2,")] ^= 1;
    fmt_path(pb, sizeof pb, "%s/changed.csv", ser);
    write_text(pb, t);
    free(t);
    ck_assert(!same_but_wall(pa, pb));
}
END_TEST

/* A run that fails in the pool (its directory is a file) is listed, the
 * others finish and stay current, nothing of the experiment is written, and
 * the pool exits 1. */
START_TEST(test_exp_pool_failure)
{
    char out[PATH_LEN], path[PATH_LEN];
    wpath(out, sizeof out, "vol");
    fmt_path(path, sizeof path, "%s/runs", out);
    ck_assert_int_eq(mkdir(out, 0700), 0);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    fmt_path(path, sizeof path, "%s/runs/muller_pool_3d", out);
    write_text(path, "not a directory\n");
    argv_list a;
    args_volume(&a, out);
    args_add(&a, "--jobs", "2", END);
    cli_result r = cli_run(&a);
    expect_code(&r, 1);
    ck_assert_msg(strstr(r.err, "pool: 1 of 14 runs failed") && strstr(r.err, "  muller_pool_3d (exit 1)"),
                  "stderr:\n%s", r.err);
    cli_free(&r);
    fmt_path(path, sizeof path, "%s/volume_summary.csv", out);
    ck_assert_msg(!exists(path), "a failed pool wrote the summary");
    args_volume(&a, out);
    args_add(&a, "--plan", END);
    r = cli_run(&a);
    expect_code(&r, 0);
    static char ids[64][128];
    ck_assert_uint_eq(plan_ids(r.out, ids, 64), 1);
    ck_assert_str_eq(ids[0], "muller_pool_3d");
    cli_free(&r);
}
END_TEST

/* --jobs, --plan and --only refuse what is not valid, writing nothing. */
START_TEST(test_bad_plan_options)
{
    char out[PATH_LEN];
    wpath(out, sizeof out, "vol");
    argv_list a;
    args_volume(&a, out);
    args_add(&a, "--jobs", "0", END);
    expect_bad(&a, "'0'", "1 to 256", END);
    args_volume(&a, out);
    args_add(&a, "--jobs", "2x", END);
    expect_bad(&a, "'2x'", END);
    args_volume(&a, out);
    args_add(&a, "--plan", "--jobs", "2", END);
    expect_bad(&a, "--plan", END);
    ck_assert_int_eq(mkdir(out, 0700), 0);
    args_volume(&a, out);
    args_add(&a, "--only", "nosuch_run", END);
    expect_bad(&a, "'nosuch_run'", END);
}
END_TEST

static Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");

    TCase *bad = tcase_create("bad_input");
    tcase_add_unchecked_fixture(bad, base_setup, base_teardown);
    tcase_add_checked_fixture(bad, cli_setup, cli_teardown);
    tcase_add_test(bad, test_bad_solver);
    tcase_add_test(bad, test_bad_scene);
    tcase_add_test(bad, test_bad_experiment);
    tcase_add_test(bad, test_bad_set_unknown_key);
    tcase_add_test(bad, test_bad_out_of_range);
    tcase_add_test(bad, test_bad_not_a_number);
    tcase_add_test(bad, test_bad_ini_malformed);
    tcase_add_test(bad, test_bad_ini_unknown_section);
    tcase_add_test(bad, test_bad_ini_unknown_key);
    tcase_add_test(bad, test_bad_config_missing);
    tcase_add_test(bad, test_bad_out_unwritable);
    tcase_add_test(bad, test_bad_option);
    tcase_add_test(bad, test_bad_command);
    tcase_add_test(bad, test_bad_scene_too_coarse);
    tcase_add_test(bad, test_bad_periodic);
    tcase_add_test(bad, test_bad_steps);
    tcase_add_test(bad, test_bad_memory);
    tcase_add_test(bad, test_bad_fluid);
    tcase_add_test(bad, test_bad_preset);
    tcase_add_test(bad, test_bad_existing_out_stays_empty);
    tcase_add_test(bad, test_bad_lockstep);
    tcase_add_test(bad, test_bad_plan_options);
    suite_add_tcase(s, bad);

    TCase *info = tcase_create("info");
    tcase_add_unchecked_fixture(info, base_setup, base_teardown);
    tcase_add_checked_fixture(info, cli_setup, cli_teardown);
    tcase_add_test(info, test_help);
    tcase_add_test(info, test_help_matches_registry);
    tcase_add_test(info, test_list);
    suite_add_tcase(s, info);

    TCase *run = tcase_create("run");
    tcase_add_unchecked_fixture(run, base_setup, base_teardown);
    tcase_add_checked_fixture(run, cli_setup, cli_teardown);
    tcase_add_test(run, test_run_happy_path);
    tcase_add_test(run, test_run_vtp);
    tcase_add_test(run, test_run_no_snapshots);
    tcase_add_test(run, test_run_config);
    tcase_add_test(run, test_run_unstable);
    tcase_add_test(run, test_run_unstable_within_frame);
    tcase_add_test(run, test_blowup_reasons);
    tcase_add_test(run, test_out_of_memory);
    tcase_add_test(run, test_run_deterministic);
    tcase_add_test(run, test_run_beside_another);
    tcase_add_test(run, test_wait_policy_default);
    tcase_add_test(run, test_bench_lockstep);
    tcase_add_test(run, test_run_sigterm_resume);
    tcase_add_test(run, test_run_dt_note_force);
    tcase_add_test(run, test_write_errors);
    tcase_add_test(run, test_write_dir_vanished);
    tcase_add_test(run, test_write_error_exp);
    tcase_add_test(run, test_exp_plan);
    tcase_add_test(run, test_exp_pool_same_bytes);
    tcase_add_test(run, test_exp_pool_failure);
    suite_add_tcase(s, run);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(cli_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
