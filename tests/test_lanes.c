/* test_lanes.c — core/lanes.h's contract: every operation gives the same bits
 * at every level (portable C and AVX2; the AVX-512VL level is the AVX2 code
 * compiled with more registers).  Random operands with the awkward values
 * mixed in (signed zeros, NaN, infinities, ties for rint, subnormals), and
 * the scattered additions with repeated indices (a row's padded last four
 * repeats its own particle), whose order of addition is part of the contract. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../core/lanes.h"
#include "../core/rng.h"

/* results per call of ops: */
#define NOUT 80

/* The operations on a = x[0..3], b = x[4..7], c = x[8..11] into out[], the
 * scatters into t (16 x 4 doubles) at indices j; SFX names the level, ATTR is
 * its target attribute.  Expanded once per level, with that level's V_*. */
#define LANES_OPS(SFX, ATTR)                                                                             \
    ATTR static void ops_##SFX(const double *x, const uint32_t *j, double *out, double *t, uint32_t *cmp)  \
    {                                                                                                    \
        vd a, b, c;                                                                                      \
        memcpy(&a, x, sizeof a);                                                                         \
        memcpy(&b, x + 4, sizeof b);                                                                     \
        memcpy(&c, x + 8, sizeof c);                                                                     \
        const vd r[] = {V_ADD(a, b),         V_SUB(a, b),          V_MUL(a, b),          V_DIV(a, b),     \
                        V_FMA(a, b, c),      V_SQRT(a),            V_RINT(a),            V_MIN(a, b),     \
                        V_MAX(a, b),         V_SEL_LT(a, b, c),    V_SEL_GT(a, b, c),    V_SEL_NE(a, b, c), \
                        V_SET1(x[1]),        V_INDEX(j),           V_NEG(a),             V_GATHER(t, j),       V_LOADU(x + 5)};                                                \
        for (size_t k = 0; k < sizeof r / sizeof r[0]; k++)                                              \
            memcpy(out + 4 * k, &r[k], sizeof r[k]);                                                     \
        out[4 * 17] = V_HSUM(a);                                                                         \
        V_STORE(out + 4 * 18, b);                                                                         \
        cmp[0] = V_POS_BITS(a);                                                                          \
        V_ADD1(t, j, a);                                                                                 \
        V_ADD3(t + 16, j, a, b, c);                                                                      \
        V_ADD4(t + 64, j, a, b, c, V_ADD(a, c));                                                         \
        uint32_t tail[4];                                                                                \
        const uint32_t *q = V_ROW_QUAD(j, 3, 0, 7, tail);                                                \
        memcpy(cmp + 1, q, 4 * sizeof *q);                                                               \
        cmp[5] = (uint32_t)V_COMPACT4(j, cmp[0], cmp + 6);                                               \
    }

#include "../core/lanes_portable.inc"
LANES_OPS(base, )
#include "../core/lanes_undef.inc"
#ifdef PFB_LANES_AVX2
#include "../core/lanes_avx2.inc"
LANES_OPS(avx2, __attribute__((target("avx2,fma"))))
#include "../core/lanes_undef.inc"
#endif

/* Equal bits, or both NaN: a NaN's sign and payload are not the contract's
 * (C lets the compiler commute an operation's operands, and with two NaN
 * operands x86 keeps the first's payload). */
static int same(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* a random operand, one in four an awkward value */
static double operand(pfb_rng *r)
{
    static const double odd[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 2.5, -3.5, 0.5, DBL_MIN / 8, 1e300, -1e-300};
    const double u = rng_uniform(r);
    if (u < 0.25)
        return odd[(size_t)(rng_uniform(r) * (sizeof odd / sizeof odd[0])) % (sizeof odd / sizeof odd[0])];
    return (rng_uniform(r) - 0.5) * pow(10.0, 6.0 * (rng_uniform(r) - 0.5));
}

/* 20,000 random operand sets: portable and AVX2 results equal bit for bit
 * (NaNs included: their payloads too), the scatters' sums as well. */
START_TEST(test_levels_same_bits)
{
    if (lanes_level(1) < 1)
        return; /* no AVX2 here: one level only */
#ifdef PFB_LANES_AVX2
    pfb_rng r;
    rng_seed(&r, 17);
    for (int it = 0; it < 20000; it++) {
        double x[12];
        for (int k = 0; k < 12; k++)
            x[k] = operand(&r);
        if (it % 3 == 0)
            x[8] = x[0]; /* equal operands for min, max and the selections */
        uint32_t j[4];
        for (int k = 0; k < 4; k++) /* indices 0..15, repeats likely */
            j[k] = (uint32_t)(rng_uniform(&r) * 16) % 16;
        double out[2][NOUT], t[2][16 * 9];
        uint32_t cmp[2][16];
        memset(out, 0, sizeof out);
        memset(cmp, 0, sizeof cmp);
        for (int k = 0; k < 16 * 9; k++)
            t[0][k] = t[1][k] = (double)k * 0.1;
        ops_base(x, j, out[0], t[0], cmp[0]);
        ops_avx2(x, j, out[1], t[1], cmp[1]);
        for (int k = 0; k < NOUT; k++)
            ck_assert_msg(same(out[0][k], out[1][k]),
                          "set %d: operation %d lane %d differs between levels: %a against %a", it, k / 4, k % 4,
                          out[0][k], out[1][k]);
        for (int k = 0; k < 16 * 9; k++)
            ck_assert_msg(same(t[0][k], t[1][k]),
                          "set %d: scattered sum %d differs between levels: %a against %a", it, k, t[0][k], t[1][k]);
        /* the compaction writes only as many entries as it keeps */
        ck_assert_uint_eq(cmp[0][5], cmp[1][5]);
        ck_assert_msg(memcmp(cmp[0], cmp[1], (6 + cmp[0][5]) * sizeof(uint32_t)) == 0,
                      "set %d: bits, quad or compaction differ", it);
    }
#endif
}
END_TEST

/* The portable lanes are what they claim: V_FMA rounds once (a b + c with a
 * b inexact), V_RINT ties to even, V_SEL gives +0 where the test fails (NaN
 * included), V_HSUM is (l0 + l1) + (l2 + l3), V_NEG gives -0 from +0,
 * V_ROW_QUAD pads with i and V_COMPACT4 keeps the bits' entries in order. */
START_TEST(test_portable_semantics)
{
    const double e = DBL_EPSILON;
    const vd4 a = {{1 + e, 2.5, -2.5, NAN}}, b = {{1 - e, 1.0, 1.0, 1.0}}, c = {{-1.0, 0.0, 0.0, 5.0}};
    const vd4 f = vd4_fma(a, b, c);
    ck_assert(f.l[0] == -e * e); /* (1 + e)(1 - e) - 1 = -e^2, lost by a rounded product */
    const vd4 r = vd4_rint(a);
    ck_assert(r.l[1] == 2.0 && r.l[2] == -2.0);
    const vd4 s = vd4_sel_lt(a, b, c);
    ck_assert(s.l[3] == 0.0 && !signbit(s.l[3]));
    const vd4 h = {{1e16, 1.0, -1e16, 1.0}};
    ck_assert(vd4_hsum(h) == (1e16 + 1.0) + (-1e16 + 1.0));
    const vd4 z = vd4_neg(c); /* -(+0) is -0, as C's -x (0 - x would give +0) */
    ck_assert(z.l[1] == 0.0 && signbit(z.l[1]) && z.l[0] == 1.0);
    const uint32_t row[3] = {4, 9, 11};
    uint32_t tail[4], dst[8];
    const uint32_t *q = lanes_row_quad(row, 3, 0, 7, tail);
    ck_assert(q[0] == 4 && q[1] == 9 && q[2] == 11 && q[3] == 7);
    ck_assert_uint_eq(lanes_compact4_base(q, 0xa, dst), 2);
    ck_assert(dst[0] == 9 && dst[1] == 7);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lanes");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_levels_same_bits);
    tcase_add_test(tc, test_portable_semantics);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
