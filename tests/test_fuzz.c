/* test_fuzz.c — the fuzz targets' committed inputs replayed (tests/fuzz/): every
 * file of tests/fuzz/corpus/<target>/ and tests/fuzz/regress/<target>/ through
 * that target's LLVMFuzzerTestOneInput, built with the normal compiler (each
 * entry renamed fuzz_replay_<target> by the Makefile), so the inputs that once
 * crashed stay fixed under make test and make test SANITIZE=1.  A target aborts
 * on a broken contract; the sanitizers report the rest.  Run from the
 * repository's root (make test does), where the cli target's files are. */
#include <check.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fuzz_replay_ini(const uint8_t *data, size_t size);
int fuzz_replay_cli(const uint8_t *data, size_t size);
int fuzz_replay_csv(const uint8_t *data, size_t size);
int fuzz_replay_meta(const uint8_t *data, size_t size);
int fuzz_replay_checkpoint(const uint8_t *data, size_t size);

typedef int (*fuzz_entry)(const uint8_t *data, size_t size);

/* Every regular file of dir through f (a missing dir has none); the count. */
static size_t replay_dir(const char *dir, fuzz_entry f)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *fp = fopen(path, "rb");
        ck_assert_msg(fp != NULL, "cannot open %s", path);
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0, got;
        do {
            if (len == cap) {
                cap = cap ? 2 * cap : 4096;
                buf = realloc(buf, cap);
                ck_assert(buf != NULL);
            }
            got = fread(buf + len, 1, cap - len, fp);
            len += got;
        } while (got > 0);
        fclose(fp);
        /* exactly len bytes, as libFuzzer hands them over (ASan sees a read past them) */
        uint8_t *exact = malloc(len ? len : 1);
        ck_assert(exact != NULL);
        memcpy(exact, buf, len);
        free(buf);
        ck_assert_int_eq(f(exact, len), 0);
        free(exact);
        n++;
    }
    closedir(d);
    return n;
}

static void replay(const char *target, fuzz_entry f)
{
    char dir[256];
    snprintf(dir, sizeof dir, "tests/fuzz/corpus/%s", target);
    const size_t seeds = replay_dir(dir, f);
    snprintf(dir, sizeof dir, "tests/fuzz/regress/%s", target);
    replay_dir(dir, f);
    ck_assert_msg(seeds > 0, "no seed inputs in tests/fuzz/corpus/%s (run from the repository's root)", target);
}

START_TEST(test_replay_ini) { replay("ini", fuzz_replay_ini); }
END_TEST

START_TEST(test_replay_cli)
{
    /* (pfbench run --help's usage is no part of the replay's log) */
    ck_assert(freopen("/dev/null", "w", stdout) != NULL);
    replay("cli", fuzz_replay_cli);
}
END_TEST

START_TEST(test_replay_csv) { replay("csv", fuzz_replay_csv); }
END_TEST

START_TEST(test_replay_meta) { replay("meta", fuzz_replay_meta); }
END_TEST

START_TEST(test_replay_checkpoint) { replay("checkpoint", fuzz_replay_checkpoint); }
END_TEST

static Suite *fuzz_suite(void)
{
    Suite *s = suite_create("fuzz");
    TCase *tc = tcase_create("replay");
    tcase_add_test(tc, test_replay_ini);
    tcase_add_test(tc, test_replay_cli);
    tcase_add_test(tc, test_replay_csv);
    tcase_add_test(tc, test_replay_meta);
    tcase_add_test(tc, test_replay_checkpoint);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fuzz_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
