/* test_params.c — Check suite for core/params.c (typed parameters and INI files). */
#include <check.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/params.h"

/* ------------------------------------------------------------------------- */
/* Tables under test                                                          */

static const pfb_param_spec solver_spec[] = {
    {.name = "k", .type = PFB_PARAM_DOUBLE, .def = 1000.0, .min = 0.0, .max = 1e6,
     .unit = "m^2/s^2", .help = "pressure stiffness"},
    {.name = "k_near", .type = PFB_PARAM_DOUBLE, .def = 0.5, .min = 0.0, .max = 1e6,
     .unit = "m^2/s^2", .help = "near-pressure stiffness"},
    {.name = "mu", .type = PFB_PARAM_DOUBLE, .def = 0.1, .min = 0.0, .max = 10.0,
     .unit = "Pa s", .help = "viscosity"},
    {.name = "iters", .type = PFB_PARAM_INT, .def = 4, .min = 1, .max = 100,
     .unit = "1", .help = "solver iterations"},
    {.name = "verbose", .type = PFB_PARAM_BOOL, .def = 0, .unit = "", .help = "chatty output"},
    {.name = "snapshots", .type = PFB_PARAM_CHOICE, .def = 1, .unit = "",
     .help = "snapshot format", .choices = "csv|vtp|none"},
    {.name = NULL},
};

static const pfb_param_spec run_spec[] = {
    {.name = "steps", .type = PFB_PARAM_INT, .def = 100, .min = 0, .max = 1000000,
     .unit = "1", .help = "time steps"},
    {.name = "dt", .type = PFB_PARAM_DOUBLE, .def = 1e-3, .min = 1e-9, .max = 1.0,
     .unit = "s", .help = "time step"},
    {.name = "snapshots", .type = PFB_PARAM_CHOICE, .def = 0, .unit = "",
     .help = "snapshot format", .choices = "csv|vtp|none"},
    {.name = NULL},
};

#define OWNER "solver muller"

/* ------------------------------------------------------------------------- */
/* Helpers                                                                    */

static void init_solver(pfb_params *p)
{
    pfb_err err = {{0}};
    ck_assert_int_eq(params_init(p, solver_spec, OWNER, &err), PFB_OK);
}

/* The message is one line and contains needle. */
static void msg_has(const pfb_err *err, const char *needle)
{
    ck_assert_msg(strchr(err->msg, '\n') == NULL, "message spans lines: %s", err->msg);
    ck_assert_msg(strstr(err->msg, needle) != NULL, "message '%s' lacks '%s'", err->msg, needle);
}

/* Setting key to text fails with EINVAL, leaves the value alone, and the
 * message quotes the text and names the key. */
static void expect_bad_text(pfb_params *p, const char *key, const char *text, const char *valid)
{
    pfb_err err = {{0}};
    char quoted[160];
    int i = params_find(p, key);
    ck_assert_int_ge(i, 0);
    double before = p->val[i];
    unsigned char set_before = p->is_set[i];
    ck_assert_int_eq(params_set(p, key, text, &err), PFB_EINVAL);
    ck_assert(memcmp(&before, &p->val[i], sizeof before) == 0);
    ck_assert_int_eq(p->is_set[i], set_before);
    snprintf(quoted, sizeof quoted, "value '%s' for '%s'", text, key);
    msg_has(&err, quoted);
    msg_has(&err, OWNER ": ");
    if (valid)
        msg_has(&err, valid);
}

static uint64_t bits_of(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* ------------------------------------------------------------------------- */
/* Tables, defaults and text values                                           */

START_TEST(test_defaults)
{
    pfb_params p;
    char buf[64];
    ck_assert_uint_eq(params_spec_count(solver_spec), 6);
    ck_assert_uint_eq(params_spec_count(NULL), 0);
    init_solver(&p);
    ck_assert_uint_eq(p.n, 6);
    ck_assert_str_eq(p.owner, OWNER);
    ck_assert(params_get(&p, "k") == 1000.0);
    ck_assert(params_get(&p, "k_near") == 0.5);
    ck_assert(params_get(&p, "mu") == 0.1);
    ck_assert_int_eq(params_get_int(&p, "iters"), 4);
    ck_assert_int_eq(params_get_int(&p, "verbose"), 0);
    ck_assert_int_eq(params_get_int(&p, "snapshots"), 1);
    for (size_t i = 0; i < p.n; i++)
        ck_assert_int_eq(p.is_set[i], 0);
    ck_assert_int_eq(params_find(&p, "mu"), 2);
    ck_assert_int_eq(params_find(&p, "nope"), -1);

    const char *want[] = {"1000", "0.5", "0.1", "4", "false", "vtp"};
    for (size_t i = 0; i < p.n; i++) {
        params_format(&p, i, buf, sizeof buf);
        ck_assert_str_eq(buf, want[i]);
    }
    params_free(&p);
    ck_assert_ptr_null(p.val);
    params_free(&p); /* a zeroed struct is fine */
}
END_TEST

START_TEST(test_missing_key_get)
{
    pfb_params p;
    init_solver(&p);
    ck_assert(isnan(params_get(&p, "no_such_key")));
    ck_assert_int_eq(params_get_int(&p, "no_such_key"), 0);
    params_free(&p);
}
END_TEST

START_TEST(test_set_double_text)
{
    pfb_params p;
    pfb_err err = {{0}};
    init_solver(&p);
    ck_assert_int_eq(params_set(&p, "k", "2.5e3", &err), PFB_OK);
    ck_assert(params_get(&p, "k") == 2500.0);
    ck_assert_int_eq(p.is_set[0], 1);
    ck_assert_int_eq(p.is_set[1], 0);
    ck_assert_int_eq(params_is_set(&p, "k"), 1);
    ck_assert_int_eq(params_is_set(&p, "k_near"), 0);
    ck_assert_int_eq(params_is_set(&p, "no_such_key"), 0);
    ck_assert_int_eq(params_set(&p, "mu", "  0.25 ", &err), PFB_OK); /* surrounding blanks */
    ck_assert(params_get(&p, "mu") == 0.25);
    params_free(&p);
}
END_TEST

START_TEST(test_set_int_text)
{
    pfb_params p;
    pfb_err err = {{0}};
    init_solver(&p);
    ck_assert_int_eq(params_set(&p, "iters", "17", &err), PFB_OK);
    ck_assert_int_eq(params_get_int(&p, "iters"), 17);
    ck_assert(params_get(&p, "iters") == 17.0);
    expect_bad_text(&p, "iters", "2.5", "valid: 1 to 100");
    expect_bad_text(&p, "iters", "12abc", "is not an integer");
    expect_bad_text(&p, "iters", "0x10", "is not an integer");
    expect_bad_text(&p, "iters", "99999999999999999999999", "is out of range");
    ck_assert_int_eq(params_get_int(&p, "iters"), 17);
    params_free(&p);
}
END_TEST

START_TEST(test_set_bool_text)
{
    pfb_params p;
    pfb_err err = {{0}};
    init_solver(&p);
    const char *yes[] = {"1", "true", "TRUE", "Yes", "on", "ON"};
    const char *no[] = {"0", "false", "False", "no", "NO", "off", "Off"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        ck_assert_int_eq(params_set(&p, "verbose", "0", &err), PFB_OK);
        ck_assert_int_eq(params_set(&p, "verbose", yes[i], &err), PFB_OK);
        ck_assert_int_eq(params_get_int(&p, "verbose"), 1);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        ck_assert_int_eq(params_set(&p, "verbose", "1", &err), PFB_OK);
        ck_assert_int_eq(params_set(&p, "verbose", no[i], &err), PFB_OK);
        ck_assert_int_eq(params_get_int(&p, "verbose"), 0);
    }
    expect_bad_text(&p, "verbose", "maybe", "is invalid");
    expect_bad_text(&p, "verbose", "2", "true, false, yes, no, on, off, 1, 0");
    expect_bad_text(&p, "verbose", "", "true");
    params_free(&p);
}
END_TEST

START_TEST(test_set_choice_text)
{
    pfb_params p;
    pfb_err err = {{0}};
    char buf[16];
    init_solver(&p);
    ck_assert_int_eq(params_set(&p, "snapshots", "none", &err), PFB_OK);
    ck_assert_int_eq(params_get_int(&p, "snapshots"), 2);
    params_format(&p, 5, buf, sizeof buf);
    ck_assert_str_eq(buf, "none");
    ck_assert_int_eq(params_set(&p, "snapshots", "csv", &err), PFB_OK);
    ck_assert_int_eq(params_get_int(&p, "snapshots"), 0);

    ck_assert_int_eq(params_set(&p, "snapshots", "xml", &err), PFB_EINVAL);
    ck_assert_str_eq(err.msg,
                     OWNER ": value 'xml' for 'snapshots' is invalid; valid: csv, vtp, none");
    expect_bad_text(&p, "snapshots", "cs", "valid: csv, vtp, none");
    expect_bad_text(&p, "snapshots", "csv|vtp", "valid: csv, vtp, none");
    ck_assert_int_eq(params_get_int(&p, "snapshots"), 0);
    params_free(&p);
}
END_TEST

START_TEST(test_boundaries_inclusive)
{
    pfb_params p;
    pfb_err err = {{0}};
    char text[64];
    init_solver(&p);

    ck_assert_int_eq(params_set(&p, "k", "0", &err), PFB_OK);
    ck_assert(params_get(&p, "k") == 0.0);
    ck_assert_int_eq(params_set(&p, "k", "1e6", &err), PFB_OK);
    ck_assert(params_get(&p, "k") == 1e6);

    snprintf(text, sizeof text, "%.17g", nextafter(1e6, 2e6));
    expect_bad_text(&p, "k", text, "is out of range");
    snprintf(text, sizeof text, "%.17g", nextafter(0.0, -1.0));
    expect_bad_text(&p, "k", text, "valid: 0 to 1e+06 (m^2/s^2)");

    ck_assert_int_eq(params_set(&p, "k", "-3", &err), PFB_EINVAL);
    ck_assert_str_eq(err.msg, OWNER ": value '-3' for 'k' is out of range; valid: 0 to 1e+06 (m^2/s^2)");

    ck_assert_int_eq(params_set(&p, "iters", "1", &err), PFB_OK);
    ck_assert_int_eq(params_get_int(&p, "iters"), 1);
    ck_assert_int_eq(params_set(&p, "iters", "100", &err), PFB_OK);
    ck_assert_int_eq(params_get_int(&p, "iters"), 100);
    expect_bad_text(&p, "iters", "0", "valid: 1 to 100");
    expect_bad_text(&p, "iters", "101", "valid: 1 to 100");
    ck_assert_int_eq(params_set(&p, "iters", "101", &err), PFB_EINVAL);
    ck_assert_str_eq(err.msg, OWNER ": value '101' for 'iters' is out of range; valid: 1 to 100");

    /* the numeric path has the same inclusive bounds */
    ck_assert_int_eq(params_set_double(&p, "mu", 0.0, &err), PFB_OK);
    ck_assert_int_eq(params_set_double(&p, "mu", 10.0, &err), PFB_OK);
    ck_assert_int_eq(params_set_double(&p, "mu", nextafter(10.0, 11.0), &err), PFB_EINVAL);
    msg_has(&err, "is out of range; valid: 0 to 10 (Pa s)");
    msg_has(&err, "10.000000000000002"); /* %g would hide the excess */
    ck_assert_int_eq(params_set_double(&p, "mu", -1e-300, &err), PFB_EINVAL);
    ck_assert(params_get(&p, "mu") == 10.0);
    params_free(&p);
}
END_TEST

START_TEST(test_rejects_non_numbers)
{
    pfb_params p;
    init_solver(&p);
    const char *bad[] = {"abc", "", "   ", "1.5x", "1.5 2", "--1", "nan", "NaN", "inf",
                         "-inf", "infinity", "1e999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_bad_text(&p, "k", bad[i], "valid: 0 to 1e+06 (m^2/s^2)");

    pfb_err err = {{0}};
    ck_assert_int_eq(params_set(&p, "k", "abc", &err), PFB_EINVAL);
    msg_has(&err, OWNER ": value 'abc' for 'k' is not a number");
    ck_assert_int_eq(params_set(&p, "k", "1.5x", &err), PFB_EINVAL);
    msg_has(&err, "'1.5x' for 'k' is not a number");
    ck_assert_int_eq(params_set(&p, "k", "nan", &err), PFB_EINVAL);
    msg_has(&err, "is not a finite number");
    ck_assert_int_eq(params_set(&p, "k", "1e999", &err), PFB_EINVAL);
    msg_has(&err, "is out of range");
    ck_assert_int_eq(params_set(&p, "k", NULL, &err), PFB_EINVAL);
    msg_has(&err, "is not a number");

    /* a newline in the text must not break the one-line message */
    ck_assert_int_eq(params_set(&p, "k", "1\n2", &err), PFB_EINVAL);
    msg_has(&err, "'1?2'");
    ck_assert(params_get(&p, "k") == 1000.0);
    ck_assert_int_eq(p.is_set[0], 0);
    params_free(&p);
}
END_TEST

START_TEST(test_unknown_key_suggests)
{
    pfb_params p;
    pfb_err err = {{0}};
    init_solver(&p);
    ck_assert_int_eq(params_set(&p, "k_neer", "1", &err), PFB_EINVAL);
    ck_assert_str_eq(err.msg, OWNER ": unknown parameter 'k_neer'; did you mean 'k_near'?");
    ck_assert_int_eq(params_set_double(&p, "itres", 3.0, &err), PFB_EINVAL);
    msg_has(&err, "unknown parameter 'itres'; did you mean 'iters'?");
    params_free(&p);
}
END_TEST

START_TEST(test_unknown_key_lists_names)
{
    pfb_params p;
    pfb_err err = {{0}};
    init_solver(&p);
    ck_assert_int_eq(params_set(&p, "gravitational_constant", "1", &err), PFB_EINVAL);
    ck_assert_str_eq(err.msg, OWNER ": unknown parameter 'gravitational_constant'; "
                              "valid: k, k_near, mu, iters, verbose, snapshots");
    params_free(&p);
}
END_TEST

START_TEST(test_set_double_checks)
{
    pfb_params p;
    pfb_err err = {{0}};
    init_solver(&p);
    ck_assert_int_eq(params_set_double(&p, "k", 12.5, &err), PFB_OK);
    ck_assert(params_get(&p, "k") == 12.5);
    ck_assert_int_eq(p.is_set[0], 1);
    ck_assert_int_eq(params_set_double(&p, "k", NAN, &err), PFB_EINVAL);
    msg_has(&err, "is not a finite number");
    ck_assert_int_eq(params_set_double(&p, "k", INFINITY, &err), PFB_EINVAL);
    ck_assert(params_get(&p, "k") == 12.5);

    ck_assert_int_eq(params_set_double(&p, "iters", 7.0, &err), PFB_OK);
    ck_assert_int_eq(params_get_int(&p, "iters"), 7);
    ck_assert_int_eq(params_set_double(&p, "iters", 2.5, &err), PFB_EINVAL);
    msg_has(&err, "value '2.5' for 'iters' is not an integer; valid: 1 to 100");

    ck_assert_int_eq(params_set_double(&p, "verbose", 1.0, &err), PFB_OK);
    ck_assert_int_eq(params_get_int(&p, "verbose"), 1);
    ck_assert_int_eq(params_set_double(&p, "verbose", 2.0, &err), PFB_EINVAL);
    msg_has(&err, "value '2' for 'verbose' is invalid");

    ck_assert_int_eq(params_set_double(&p, "snapshots", 2.0, &err), PFB_OK);
    ck_assert_int_eq(params_get_int(&p, "snapshots"), 2);
    ck_assert_int_eq(params_set_double(&p, "snapshots", 3.0, &err), PFB_EINVAL);
    msg_has(&err, "index 0 to 2 (csv, vtp, none)");
    ck_assert_int_eq(params_set_double(&p, "snapshots", -1.0, &err), PFB_EINVAL);
    ck_assert_int_eq(params_set_double(&p, "snapshots", 0.5, &err), PFB_EINVAL);
    ck_assert_int_eq(params_get_int(&p, "snapshots"), 2);
    params_free(&p);
}
END_TEST

START_TEST(test_format_round_trip)
{
    pfb_params p;
    pfb_err err = {{0}};
    char buf[64];
    init_solver(&p);
    const double values[] = {0.1 + 0.2, 1.0 / 3.0, 2.0 / 3.0 * 1e5, 6.02214076e-23,
                             5e-324, 999999.99999999988, 0.0, 123456.789};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        ck_assert_int_eq(params_set_double(&p, "k", values[i], &err), PFB_OK);
        params_format(&p, 0, buf, sizeof buf);
        char *end = NULL;
        double back = strtod(buf, &end);
        ck_assert(*end == '\0');
        ck_assert_msg(bits_of(back) == bits_of(values[i]), "'%s' does not read back as %.17g",
                      buf, values[i]);
        /* and the text is accepted by params_set with the same bits */
        ck_assert_int_eq(params_set(&p, "k", buf, &err), PFB_OK);
        ck_assert(bits_of(params_get(&p, "k")) == bits_of(values[i]));
    }
    ck_assert_int_eq(params_set(&p, "mu", "0.001", &err), PFB_OK);
    params_format(&p, 2, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.001");
    ck_assert_int_eq(params_set(&p, "verbose", "on", &err), PFB_OK);
    params_format(&p, 4, buf, sizeof buf);
    ck_assert_str_eq(buf, "true");
    params_format(&p, 99, buf, sizeof buf); /* out of range index: empty */
    ck_assert_str_eq(buf, "");
    params_free(&p);
}
END_TEST

START_TEST(test_init_rejects_bad_specs)
{
    pfb_params p;
    pfb_err err = {{0}};
    const pfb_param_spec def_outside[] = {
        {.name = "depth", .type = PFB_PARAM_DOUBLE, .def = 20.0, .min = 0.0, .max = 10.0,
         .unit = "m"},
        {.name = NULL}};
    ck_assert_int_eq(params_init(&p, def_outside, "scene pool", &err), PFB_EINVAL);
    msg_has(&err, "scene pool: default 20 of parameter 'depth' is outside 0 to 10");
    ck_assert_ptr_null(p.val);

    const pfb_param_spec dup[] = {
        {.name = "a", .type = PFB_PARAM_INT, .def = 1, .min = 0, .max = 2},
        {.name = "a", .type = PFB_PARAM_INT, .def = 1, .min = 0, .max = 2},
        {.name = NULL}};
    ck_assert_int_eq(params_init(&p, dup, "run", &err), PFB_EINVAL);
    msg_has(&err, "'a' is declared twice");

    const pfb_param_spec bad_choice[] = {
        {.name = "fmt", .type = PFB_PARAM_CHOICE, .def = 3, .choices = "csv|vtp|none"},
        {.name = NULL}};
    ck_assert_int_eq(params_init(&p, bad_choice, "run", &err), PFB_EINVAL);
    msg_has(&err, "default index 3 of choice parameter 'fmt'");

    const pfb_param_spec int_def[] = {
        {.name = "n", .type = PFB_PARAM_INT, .def = 1.5, .min = 0, .max = 2},
        {.name = NULL}};
    ck_assert_int_eq(params_init(&p, int_def, "run", &err), PFB_EINVAL);
    msg_has(&err, "'n' is not an integer");

    const pfb_param_spec nan_def[] = {
        {.name = "x", .type = PFB_PARAM_DOUBLE, .def = NAN, .min = 0, .max = 2},
        {.name = NULL}};
    ck_assert_int_eq(params_init(&p, nan_def, "run", &err), PFB_EINVAL);
    msg_has(&err, "default nan of parameter 'x'");
}
END_TEST

START_TEST(test_pool_not_a_number)
{
    pfb_params p;
    pfb_err err = {{0}};
    const pfb_param_spec pool[] = {
        {.name = "depth", .type = PFB_PARAM_DOUBLE, .def = 1.0, .min = 0.0, .max = 10.0,
         .unit = "m"},
        {.name = NULL}};
    ck_assert_int_eq(params_init(&p, pool, "scene pool", &err), PFB_OK);
    ck_assert_int_eq(params_set(&p, "depth", "abc", &err), PFB_EINVAL);
    msg_has(&err, "scene pool: value 'abc' for 'depth' is not a number");
    msg_has(&err, "valid: 0 to 10 (m)");
    params_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* INI files                                                                  */

static char tmp_dir[64];
static char tmp_files[8][160];
static size_t tmp_nfiles;

static void ini_setup(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/pfb_test_params_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp_dir));
    tmp_nfiles = 0;
}

static void ini_teardown(void)
{
    for (size_t i = 0; i < tmp_nfiles; i++)
        remove(tmp_files[i]);
    rmdir(tmp_dir);
}

/* Write text to a new file in the temporary directory; returns its path. */
static const char *write_file(const char *name, const char *text)
{
    ck_assert_uint_lt(tmp_nfiles, sizeof tmp_files / sizeof tmp_files[0]);
    char *path = tmp_files[tmp_nfiles++];
    snprintf(path, sizeof tmp_files[0], "%s/%s", tmp_dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fputs(text, f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

typedef struct two_tables {
    pfb_params run, solver;
    pfb_ini_target targets[2];
} two_tables;

static void tables_init(two_tables *t)
{
    pfb_err err = {{0}};
    ck_assert_int_eq(params_init(&t->run, run_spec, "run", &err), PFB_OK);
    ck_assert_int_eq(params_init(&t->solver, solver_spec, OWNER, &err), PFB_OK);
    t->targets[0].section = "run";
    t->targets[0].params = &t->run;
    t->targets[1].section = "solver muller";
    t->targets[1].params = &t->solver;
}

static void tables_free(two_tables *t)
{
    params_free(&t->run);
    params_free(&t->solver);
}

static const char *const ignored[] = {"solver pbf", "solver sph"};

static int load(two_tables *t, const char *path, pfb_err *err)
{
    return params_load_ini(path, t->targets, 2, ignored, 2, err);
}

START_TEST(test_ini_valid_two_tables)
{
    two_tables t;
    pfb_err err = {{0}};
    tables_init(&t);
    const char *path = write_file("ok.ini",
                                  "; a comment\n"
                                  "# another comment\n"
                                  "[run]\n"
                                  "steps = 250\n"
                                  "snapshots = none   ; inline comment\n"
                                  "\n"
                                  "[solver muller]\n"
                                  "k = 2.5e4\n"
                                  "verbose = yes\n"
                                  "snapshots: csv\n");
    ck_assert_int_eq(load(&t, path, &err), PFB_OK);
    ck_assert_int_eq(params_get_int(&t.run, "steps"), 250);
    ck_assert_int_eq(params_get_int(&t.run, "snapshots"), 2);
    ck_assert(params_get(&t.run, "dt") == 1e-3);
    ck_assert_int_eq(t.run.is_set[1], 0);
    ck_assert(params_get(&t.solver, "k") == 2.5e4);
    ck_assert_int_eq(params_get_int(&t.solver, "verbose"), 1);
    ck_assert_int_eq(params_get_int(&t.solver, "snapshots"), 0);
    ck_assert_int_eq(t.solver.is_set[0], 1);
    ck_assert_int_eq(t.solver.is_set[2], 0);
    ck_assert_int_eq(params_is_set(&t.solver, "k"), 1);
    ck_assert_int_eq(params_is_set(&t.solver, "mu"), 0);
    tables_free(&t);
}
END_TEST

START_TEST(test_ini_ignored_section)
{
    two_tables t;
    pfb_err err = {{0}};
    tables_init(&t);
    const char *path = write_file("ignored.ini",
                                  "[solver pbf]\n"
                                  "k = 7\n"
                                  "anything = goes\n"
                                  "[solver muller]\n"
                                  "mu = 2\n");
    ck_assert_int_eq(load(&t, path, &err), PFB_OK);
    ck_assert(params_get(&t.solver, "k") == 1000.0);
    ck_assert(params_get(&t.solver, "mu") == 2.0);
    tables_free(&t);
}
END_TEST

START_TEST(test_ini_unknown_section)
{
    two_tables t;
    pfb_err err = {{0}};
    tables_init(&t);
    const char *path = write_file("badsec.ini",
                                  "[run]\n"
                                  "steps = 3\n"
                                  "[solvr muller]\n"
                                  "k = 1\n");
    ck_assert_int_eq(load(&t, path, &err), PFB_EINVAL);
    msg_has(&err, "badsec.ini");
    msg_has(&err, "line 4");
    msg_has(&err, "unknown section [solvr muller]");
    msg_has(&err, "did you mean [solver muller]?");
    msg_has(&err, "valid sections: run, solver muller, solver pbf, solver sph");

    const char *far = write_file("farsec.ini", "[output]\nformat = vtp\n");
    ck_assert_int_eq(load(&t, far, &err), PFB_EINVAL);
    msg_has(&err, "line 2: unknown section [output]; valid sections: run, solver muller");
    tables_free(&t);
}
END_TEST

START_TEST(test_ini_key_outside_section)
{
    two_tables t;
    pfb_err err = {{0}};
    tables_init(&t);
    const char *path = write_file("nosec.ini", "\nsteps = 3\n[run]\n");
    ck_assert_int_eq(load(&t, path, &err), PFB_EINVAL);
    msg_has(&err, "nosec.ini' line 2: key 'steps' is outside any section");
    msg_has(&err, "valid sections: run, solver muller");
    ck_assert_int_eq(params_get_int(&t.run, "steps"), 100);
    tables_free(&t);
}
END_TEST

START_TEST(test_ini_unknown_key)
{
    two_tables t;
    pfb_err err = {{0}};
    tables_init(&t);
    const char *path = write_file("badkey.ini",
                                  "[solver muller]\n"
                                  "k = 5\n"
                                  "; comment\n"
                                  "k_neer = 1\n"
                                  "mu = 3\n");
    ck_assert_int_eq(load(&t, path, &err), PFB_EINVAL);
    msg_has(&err, "config '");
    msg_has(&err, "badkey.ini' line 4: " OWNER ": unknown parameter 'k_neer'; did you mean 'k_near'?");
    ck_assert(params_get(&t.solver, "k") == 5.0);
    ck_assert(params_get(&t.solver, "mu") == 0.1); /* parsing stopped at the error */
    tables_free(&t);
}
END_TEST

START_TEST(test_ini_bad_value)
{
    two_tables t;
    pfb_err err = {{0}};
    tables_init(&t);
    const char *path = write_file("badval.ini", "[run]\nsnapshots = xml\n");
    ck_assert_int_eq(load(&t, path, &err), PFB_EINVAL);
    msg_has(&err, "badval.ini' line 2: run: value 'xml' for 'snapshots' is invalid; "
                  "valid: csv, vtp, none");
    tables_free(&t);
}
END_TEST

START_TEST(test_ini_malformed_line)
{
    two_tables t;
    pfb_err err = {{0}};
    tables_init(&t);
    const char *path = write_file("malformed.ini",
                                  "[run]\n"
                                  "steps = 3\n"
                                  "this line has no equals sign\n"
                                  "k_neer = 1\n");
    ck_assert_int_eq(load(&t, path, &err), PFB_EINVAL);
    msg_has(&err, "malformed.ini' line 3: malformed line; expected key = value or [section]");
    tables_free(&t);
}
END_TEST

START_TEST(test_ini_first_error_kept)
{
    two_tables t;
    pfb_err err = {{0}};
    tables_init(&t);
    /* a bad value first, a malformed line after it */
    const char *a = write_file("first_a.ini", "[run]\nsteps = -1\n[run\nsteps = x\n");
    ck_assert_int_eq(load(&t, a, &err), PFB_EINVAL);
    msg_has(&err, "line 2: run: value '-1' for 'steps' is out of range");
    /* a malformed line first, a bad key after it */
    const char *b = write_file("first_b.ini", "[run]\nsteps\n[run]\nstepz = 1\n");
    ck_assert_int_eq(load(&t, b, &err), PFB_EINVAL);
    msg_has(&err, "line 2: malformed line");
    tables_free(&t);
}
END_TEST

START_TEST(test_ini_long_line)
{
    two_tables t;
    pfb_err err = {{0}};
    char text[1200];
    tables_init(&t);
    int n = snprintf(text, sizeof text, "[run]\nsteps = 1%0900d\n", 0);
    ck_assert_int_lt(n, (int)sizeof text);
    const char *path = write_file("long.ini", text);
    ck_assert_int_eq(load(&t, path, &err), PFB_EINVAL);
    msg_has(&err, "long.ini' line 2: line is longer than");
    tables_free(&t);
}
END_TEST

START_TEST(test_ini_missing_file)
{
    two_tables t;
    pfb_err err = {{0}};
    char path[200];
    tables_init(&t);
    snprintf(path, sizeof path, "%s/does_not_exist.ini", tmp_dir);
    ck_assert_int_eq(load(&t, path, &err), PFB_EIO);
    msg_has(&err, "cannot open config '");
    msg_has(&err, path);
    msg_has(&err, strerror(ENOENT));
    tables_free(&t);
}
END_TEST

/* ------------------------------------------------------------------------- */

static Suite *params_suite(void)
{
    Suite *s = suite_create("params");

    TCase *values = tcase_create("values");
    tcase_add_test(values, test_defaults);
    tcase_add_test(values, test_missing_key_get);
    tcase_add_test(values, test_set_double_text);
    tcase_add_test(values, test_set_int_text);
    tcase_add_test(values, test_set_bool_text);
    tcase_add_test(values, test_set_choice_text);
    tcase_add_test(values, test_boundaries_inclusive);
    tcase_add_test(values, test_rejects_non_numbers);
    tcase_add_test(values, test_unknown_key_suggests);
    tcase_add_test(values, test_unknown_key_lists_names);
    tcase_add_test(values, test_set_double_checks);
    tcase_add_test(values, test_format_round_trip);
    tcase_add_test(values, test_init_rejects_bad_specs);
    tcase_add_test(values, test_pool_not_a_number);
    suite_add_tcase(s, values);

    TCase *ini = tcase_create("ini");
    tcase_add_checked_fixture(ini, ini_setup, ini_teardown);
    tcase_add_test(ini, test_ini_valid_two_tables);
    tcase_add_test(ini, test_ini_ignored_section);
    tcase_add_test(ini, test_ini_unknown_section);
    tcase_add_test(ini, test_ini_key_outside_section);
    tcase_add_test(ini, test_ini_unknown_key);
    tcase_add_test(ini, test_ini_bad_value);
    tcase_add_test(ini, test_ini_malformed_line);
    tcase_add_test(ini, test_ini_first_error_kept);
    tcase_add_test(ini, test_ini_long_line);
    tcase_add_test(ini, test_ini_missing_file);
    suite_add_tcase(s, ini);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(params_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
