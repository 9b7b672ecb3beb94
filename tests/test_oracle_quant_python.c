/*
 * tests/test_oracle_quant_python.c - the quantized oracle (specification
 * section 11) against tests/check_quant.py, an independent definition in
 * Python integers and fractions, and against the exec Python example's
 * backends/python/quant_plain.py (plain numpy, through
 * tests/check_quant_plain.py), on random problems: every rounding mode,
 * both forms of M, per tensor and per channel, bit for bit.  Skipped only
 * when /usr/bin/python3 or its numpy is missing.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oracle/problem.h"
#include "oracle/quant.h"
#include "support/shell.h"

#define PY "/usr/bin/python3"
#define PROBLEMS 60
#define MAXN 4096

static uint64_t next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int64_t pick(uint64_t *s, int64_t lo, int64_t hi) /* [lo, hi] */
{
    return lo + (int64_t)(next(s) % (uint64_t)(hi - lo + 1));
}

/* A random valid problem small enough for the Python loops. */
static iohw_problem random_problem(uint64_t *s)
{
    for (;;) {
        iohw_problem p;
        iohw_error err;
        iohw_problem_init(&p);
        p.rank = (uint32_t)pick(s, 1, 3);
        p.batch = pick(s, 1, 2);
        p.groups = pick(s, 1, 2);
        p.in_channels = p.groups * pick(s, 1, 3);
        p.out_channels = p.groups * pick(s, 1, 3);
        p.has_bias = (int32_t)pick(s, 0, 1);
        for (uint32_t a = 0; a < p.rank; a++) {
            p.in_size[a] = pick(s, 1, p.rank == 3 ? 2 : 4);
            p.kernel[a] = pick(s, 1, 3);
            p.stride[a] = pick(s, 1, 3);
            p.dilation[a] = pick(s, 1, 2);
            p.pad_begin[a] = pick(s, 0, 2);
            p.pad_end[a] = pick(s, 0, 2);
            p.output_padding[a] = pick(s, 0, 1);
        }
        if (iohw_problem_finish(&p, &err) == 0 && iohw_problem_y_count(&p) <= MAXN)
            return p;
    }
}

/* A zero point: the extremes of the range half of the time. */
static int32_t zero_point(uint64_t *s, int32_t dtype)
{
    const int64_t lo = dtype == IOHW_S8 ? -128 : 0, hi = lo + 255;
    const int64_t r = pick(s, 0, 3);
    return (int32_t)(r == 0 ? lo : r == 1 ? hi : pick(s, lo, hi));
}

/* A scale m * 2^e with m in [1, 15] (s_y's m makes M non-dyadic). */
static float scale(uint64_t *s, int e_lo, int e_hi)
{
    return ldexpf((float)pick(s, 1, 15), (int)pick(s, e_lo, e_hi));
}

typedef struct qcase {
    iohw_problem p;
    iohw_quant q;
    float s_w[8];
    int32_t mult[8], shift[8], bias[8];
    int8_t x[MAXN], w[MAXN];
} qcase;

/* The multipliers, shifts and biases of C_out <= 8 channels.  Wide: M
 * mostly between 2^-19 and 2^-7 for accumulators over the whole range.
 * Narrow: M with few significant bits near 2^-8 .. 2^2 for small
 * accumulators, so that exact ties are frequent. */
static void random_m(uint64_t *s, qcase *c, int narrow)
{
    c->q.s_x = narrow ? scale(s, -2, 0) : scale(s, -4, 0);
    c->q.s_y = narrow ? scale(s, 0, 2) : scale(s, 0, 4);
    if (pick(s, 0, 5) == 0) /* M far outside every range: 0 or saturated */
        c->q.s_y = scale(s, -120, 120);
    for (int j = 0; j < 8; j++) {
        c->s_w[j] = narrow ? scale(s, -4, -2) : scale(s, -18, -8);
        /* q in [2^30, 2^31): a few high bits only, or any. */
        c->mult[j] = (int32_t)((1u << 30) | (narrow || pick(s, 0, 1)
                                            ? (uint32_t)pick(s, 0, 7) << 27
                                            : (uint32_t)pick(s, 0, (1 << 30) - 1)));
        c->shift[j] = (int32_t)(pick(s, 0, 15) == 0 ? pick(s, -31, 2)
                                : narrow ? pick(s, -6, 0) : pick(s, -19, -8));
        c->bias[j] = (int32_t)(pick(s, 0, 15) == 0 ? (pick(s, 0, 1) ? INT32_MAX : INT32_MIN)
                               : narrow ? pick(s, -50, 50) : pick(s, -100000, 100000));
    }
    c->q.s_w = c->s_w;
    c->q.multiplier = c->mult;
    c->q.shift = c->shift;
}

static void random_quant(uint64_t *s, qcase *c, int32_t rounding, int narrow)
{
    iohw_quant *q = &c->q;
    memset(q, 0, sizeof *q);
    q->x_dtype = (int32_t)pick(s, IOHW_S8, IOHW_U8);
    q->w_dtype = (int32_t)pick(s, IOHW_S8, IOHW_U8);
    q->y_dtype = pick(s, 0, 7) == 0 ? IOHW_S32 : (int32_t)pick(s, IOHW_S8, IOHW_U8);
    q->zp_x = zero_point(s, q->x_dtype);
    q->zp_w = zero_point(s, q->w_dtype);
    q->zp_y = q->y_dtype == IOHW_S32 ? 0 : zero_point(s, q->y_dtype);
    q->rounding = rounding;
    q->m_form = rounding == IOHW_ROUND_GEMMLOWP ? IOHW_QM_FIXED
                                               : (int32_t)pick(s, IOHW_QM_SCALES, IOHW_QM_FIXED);
    q->per_channel = (int32_t)pick(s, 0, 1);
    random_m(s, c, narrow);
}

/* A value of the dtype: anywhere, or (narrow) within 3 of the zero point. */
static int8_t value(uint64_t *s, int32_t dtype, int32_t zp, int narrow)
{
    const int64_t lo = dtype == IOHW_S8 ? -128 : 0, hi = lo + 255;
    int64_t v = narrow ? zp + pick(s, -3, 3) : pick(s, lo, hi);
    v = v < lo ? lo : v > hi ? hi : v;
    return (int8_t)(uint8_t)v; /* the dtype's bits */
}

static void random_case(uint64_t *s, qcase *c, int32_t rounding)
{
    const int narrow = pick(s, 0, 2) != 0;
    c->p = random_problem(s);
    random_quant(s, c, rounding, narrow);
    const int64_t nx = iohw_problem_x_count(&c->p), nw = iohw_problem_w_count(&c->p);
    cr_assert_leq(nx, MAXN);
    cr_assert_leq(nw, MAXN);
    for (int64_t i = 0; i < nx; i++)
        c->x[i] = value(s, c->q.x_dtype, c->q.zp_x, narrow);
    for (int64_t i = 0; i < nw; i++)
        c->w[i] = value(s, c->q.w_dtype, c->q.zp_w, narrow);
}

static const char *dtype_name(int32_t t)
{
    return t == IOHW_S8 ? "s8" : t == IOHW_U8 ? "u8" : "s32";
}

static const char *rounding_name(int32_t r)
{
    static const char *const names[] = {"?", "half_even", "half_away",
                                        "half_up", "gemmlowp"};
    return names[r];
}

static void put_ints(FILE *f, const char *key, const int64_t *v, int64_t n)
{
    fprintf(f, "%s", key);
    for (int64_t i = 0; i < n; i++)
        fprintf(f, " %lld", (long long)v[i]);
    fprintf(f, "\n");
}

/* A tensor's values as its dtype reads them. */
static void put_tensor(FILE *f, const char *key, const int8_t *t, int64_t n,
                       int32_t dtype)
{
    fprintf(f, "%s", key);
    for (int64_t i = 0; i < n; i++)
        fprintf(f, " %d", dtype == IOHW_S8 ? (int)t[i] : (int)(uint8_t)t[i]);
    fprintf(f, "\n");
}

static void write_case(FILE *f, const qcase *c)
{
    const iohw_problem *p = &c->p;
    const iohw_quant *q = &c->q;
    const int R = (int)p->rank;
    const int64_t C = p->out_channels;
    fprintf(f, "rank %d\nbatch %lld\nci %lld\nco %lld\ngroups %lld\n", R,
            (long long)p->batch, (long long)p->in_channels, (long long)C,
            (long long)p->groups);
    put_ints(f, "in", p->in_size, R);
    put_ints(f, "kernel", p->kernel, R);
    put_ints(f, "stride", p->stride, R);
    put_ints(f, "dilation", p->dilation, R);
    put_ints(f, "pad_begin", p->pad_begin, R);
    put_ints(f, "pad_end", p->pad_end, R);
    put_ints(f, "out_pad", p->output_padding, R);
    fprintf(f, "x_dtype %s\nw_dtype %s\ny_dtype %s\nzp_x %d\nzp_w %d\nzp_y %d\n",
            dtype_name(q->x_dtype), dtype_name(q->w_dtype), dtype_name(q->y_dtype),
            (int)q->zp_x, (int)q->zp_w, (int)q->zp_y);
    fprintf(f, "rounding %s\nm_form %s\nper_channel %d\ns_x %a\ns_y %a\n",
            rounding_name(q->rounding), q->m_form == IOHW_QM_SCALES ? "scales" : "fixed",
            (int)q->per_channel, (double)q->s_x, (double)q->s_y);
    fprintf(f, "s_w");
    for (int64_t j = 0; j < C; j++)
        fprintf(f, " %a", (double)c->s_w[j]);
    fprintf(f, "\nmultiplier");
    for (int64_t j = 0; j < C; j++)
        fprintf(f, " %d", (int)c->mult[j]);
    fprintf(f, "\nshift");
    for (int64_t j = 0; j < C; j++)
        fprintf(f, " %d", (int)c->shift[j]);
    fprintf(f, "\nbias");
    if (!p->has_bias)
        fprintf(f, " none");
    for (int64_t j = 0; p->has_bias && j < C; j++)
        fprintf(f, " %d", (int)c->bias[j]);
    fprintf(f, "\n");
    put_tensor(f, "x", c->x, iohw_problem_x_count(p), q->x_dtype);
    put_tensor(f, "w", c->w, iohw_problem_w_count(p), q->w_dtype);
    fprintf(f, "---\n");
}

/* The oracle's answer in check_quant.py's words: "y v ..." or "invalid". */
static char *oracle_line(const qcase *c)
{
    static int32_t y32[MAXN];
    iohw_error err;
    const int64_t n = iohw_problem_y_count(&c->p);
    if (iohw_quant_conv_transpose(&c->p, &c->q, c->x, c->w, c->bias, y32, &err) != 0) {
        cr_assert(strstr(err.msg, "leaves int32") != NULL, "%s", err.msg);
        return strdup("invalid");
    }
    size_t cap = 16 + (size_t)n * 12, len = 0;
    char *line = malloc(cap);
    cr_assert_not_null(line);
    len += (size_t)snprintf(line, cap, "y");
    for (int64_t i = 0; i < n; i++) {
        const int v = c->q.y_dtype == IOHW_S8 ? ((const int8_t *)y32)[i]
                      : c->q.y_dtype == IOHW_U8 ? ((const uint8_t *)y32)[i]
                                                 : y32[i];
        len += (size_t)snprintf(line + len, cap - len, " %d", v);
    }
    return line;
}

/* PROBLEMS random cases of one rounding mode through the oracle and a
 * Python definition (tests/SCRIPT: check_quant.py, or check_quant_plain.py
 * for the exec Python example's backends/python/quant_plain.py). */
static void agree(const char *script, int32_t rounding, uint64_t seed)
{
    char in[512], out[512], *msg = NULL;
    if (access(PY, X_OK) != 0)
        cr_skip_test("no " PY ": the Python definition cannot run");
    mkdir(IOHW_TEST_TMP, 0755);
    snprintf(in, sizeof in, IOHW_TEST_TMP "/quant-%s-%s.txt", script,
             rounding_name(rounding));
    snprintf(out, sizeof out, IOHW_TEST_TMP "/quant-%s-%s.out", script,
             rounding_name(rounding));
    static qcase cases[PROBLEMS];
    uint64_t s = seed;
    FILE *f = fopen(in, "w");
    cr_assert_not_null(f, "%s", in);
    for (int j = 0; j < PROBLEMS; j++) {
        random_case(&s, &cases[j], rounding);
        write_case(f, &cases[j]);
    }
    fclose(f);
    const int rc = iohw_test_sh(&msg, PY " '%s/tests/%s' '%s' '%s'",
                                IOHW_SOURCE_DIR, script, in, out);
    if (rc == 3)
        cr_skip_test("%s", msg);
    cr_assert_eq(rc, 0, "%s failed: %s", script, msg);
    free(msg);
    f = fopen(out, "r");
    cr_assert_not_null(f, "%s", out);
    char *line = NULL;
    size_t cap = 0;
    for (int j = 0; j < PROBLEMS; j++) {
        cr_assert(getline(&line, &cap, f) > 0, "%s: no line for problem %d", out, j);
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "invalid", 7) == 0)
            line[7] = '\0';
        char *mine = oracle_line(&cases[j]);
        cr_expect_str_eq(mine, line, "%s: %s problem %d (block %d of %s) "
                         "differs", script, rounding_name(rounding), j, j + 1, in);
        free(mine);
    }
    free(line);
    fclose(f);
    remove(in);
    remove(out);
}

#define FRACTIONS "check_quant.py"
#define PLAIN "check_quant_plain.py"

Test(oracle_quant_python, half_even_agrees) { agree(FRACTIONS, IOHW_ROUND_HALF_EVEN, 11); }
Test(oracle_quant_python, half_away_agrees) { agree(FRACTIONS, IOHW_ROUND_HALF_AWAY, 12); }
Test(oracle_quant_python, half_up_agrees) { agree(FRACTIONS, IOHW_ROUND_HALF_UP, 13); }
Test(oracle_quant_python, gemmlowp_agrees) { agree(FRACTIONS, IOHW_ROUND_GEMMLOWP, 14); }

/* The exec example's plain numpy arithmetic on other random problems. */
Test(oracle_quant_python, the_exec_example_agrees_half_even) { agree(PLAIN, IOHW_ROUND_HALF_EVEN, 21); }
Test(oracle_quant_python, the_exec_example_agrees_half_away) { agree(PLAIN, IOHW_ROUND_HALF_AWAY, 22); }
Test(oracle_quant_python, the_exec_example_agrees_half_up) { agree(PLAIN, IOHW_ROUND_HALF_UP, 23); }
Test(oracle_quant_python, the_exec_example_agrees_gemmlowp) { agree(PLAIN, IOHW_ROUND_GEMMLOWP, 24); }
