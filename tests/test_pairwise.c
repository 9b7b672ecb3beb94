/*
 * tests/test_pairwise.c - covering arrays (generators/pairwise.h) checked by
 * brute force on small synthetic factor sets, and an independent checker of
 * the smoke suite's pairwise coverage.
 *
 * The checker reads the attributes of every case of a generated smoke suite
 * from its files, classifies each case into factor values with its own code
 * (written from the factor definitions, not from generators/suite_*.c),
 * lists the pairs that can coexist from its own list of exclusions, and
 * requires every one of them in some case.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cases/case.h"
#include "generators/pairwise.h"
#include "oracle/dtype.h"
#include "support/shell.h"

/* ---------------------------------------------------------------------- */
/* Brute force on small factor sets. */

typedef struct synth {
    int nf;
    int nv[8];
    int (*rule)(const int *v);  /* on complete rows; NULL: all valid */
} synth;

/* The generator's predicate from a rule on complete rows: partial rows are
 * always possible (sound, maximally optimistic). */
static int synth_valid(const int *v, void *ctx)
{
    const synth *s = ctx;
    for (int f = 0; f < s->nf; f++)
        if (v[f] < 0)
            return 1;
    return s->rule == NULL || s->rule(v);
}

static iohw_pw_spec synth_spec(synth *s, uint64_t seed)
{
    iohw_pw_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.nfactors = s->nf;
    spec.nvalues = s->nv;
    spec.valid = synth_valid;
    spec.ctx = s;
    spec.seed = seed;
    return spec;
}

/* Index of a pair (f = a, g = b), f < g, in a table of 8x8 factors of up to
 * 8 values. */
static int pidx(int f, int a, int g, int b)
{
    return ((f * 8 + g) * 8 + a) * 8 + b;
}

/* Every complete row, in odometer order: marks which pairs some valid row
 * holds (coexist) and returns how many. */
static int brute_coexisting(const synth *s, unsigned char *coexist)
{
    int v[8] = {0}, count = 0;
    memset(coexist, 0, 8 * 8 * 8 * 8);
    for (;;) {
        if (s->rule == NULL || s->rule(v))
            for (int f = 0; f < s->nf; f++)
                for (int g = f + 1; g < s->nf; g++)
                    coexist[pidx(f, v[f], g, v[g])] = 1;
        int f = s->nf - 1;
        while (f >= 0 && ++v[f] == s->nv[f])
            v[f--] = 0;
        if (f < 0)
            break;
    }
    for (int i = 0; i < 8 * 8 * 8 * 8; i++)
        count += coexist[i];
    return count;
}

/* Generates with seed and checks against brute force: every row valid,
 * every coexisting pair covered, the reported counts right. */
static iohw_pw_array check_against_brute_force(synth *s, uint64_t seed)
{
    unsigned char coexist[8 * 8 * 8 * 8], covered[8 * 8 * 8 * 8];
    iohw_pw_spec spec = synth_spec(s, seed);
    iohw_pw_array a;
    iohw_error e;

    const int expected = brute_coexisting(s, coexist);
    cr_assert_eq(iohw_pairwise_generate(&spec, &a, &e), 0, "%s", e.msg);
    cr_assert_eq(a.nfactors, s->nf);
    cr_assert_eq(a.pairs_coexisting, expected);
    cr_assert_eq(a.pairs_covered, expected);
    memset(covered, 0, sizeof covered);
    for (int r = 0; r < a.nrows; r++) {
        const int *row = a.rows + r * s->nf;
        for (int f = 0; f < s->nf; f++)
            cr_assert(row[f] >= 0 && row[f] < s->nv[f], "row %d factor %d = %d", r, f,
                      row[f]);
        cr_assert(s->rule == NULL || s->rule(row), "row %d is invalid", r);
        for (int f = 0; f < s->nf; f++)
            for (int g = f + 1; g < s->nf; g++)
                covered[pidx(f, row[f], g, row[g])] = 1;
    }
    for (int i = 0; i < 8 * 8 * 8 * 8; i++)
        cr_assert(!coexist[i] || covered[i], "pair %d coexists but is not covered", i);
    return a;
}

/* f0 = 0 and f1 = 0 exclude each other (a direct pair rule). */
static int rule_pair(const int *v)
{
    return !(v[0] == 0 && v[1] == 0);
}

/* f0 = 2 forces f1 = 2, and f1 = 2 forbids f2 = 2: the pair (f0 = 2,
 * f2 = 2) cannot coexist although no rule names both. */
static int rule_chain(const int *v)
{
    if (v[0] == 2 && v[1] != 2)
        return 0;
    if (v[1] == 2 && v[2] == 2)
        return 0;
    return 1;
}

/* Mixed sizes: the sum of the first three values must be even, and f4 < 3
 * when f3 = 1. */
static int rule_mixed(const int *v)
{
    return (v[0] + v[1] + v[2]) % 2 == 0 && !(v[3] == 1 && v[4] >= 3);
}

static int rule_none_valid(const int *v)
{
    (void)v;
    return 0;
}

Test(pairwise, four_factors_of_three_values_are_covered_in_few_rows)
{
    /* 6 factor pairs x 9 value pairs = 54 pairs; any array needs >= 9 rows
     * (the 9 pairs of two factors); greedy stays near the optimum. */
    synth s = {4, {3, 3, 3, 3}, NULL};
    iohw_pw_array a = check_against_brute_force(&s, 1);
    cr_expect_eq(a.pairs_coexisting, 54);
    cr_expect(a.nrows >= 9 && a.nrows <= 13, "%d rows", a.nrows);
    iohw_pw_array_free(&a);
}

Test(pairwise, a_forbidden_pair_is_not_counted_and_never_appears)
{
    /* 54 pairs minus (f0 = 0, f1 = 0). */
    synth s = {4, {3, 3, 3, 3}, rule_pair};
    iohw_pw_array a = check_against_brute_force(&s, 2);
    cr_expect_eq(a.pairs_coexisting, 53);
    iohw_pw_array_free(&a);
}

Test(pairwise, a_pair_ruled_out_through_a_third_factor_is_found_by_the_search)
{
    /* Excluded: (f0=2, f1=0), (f0=2, f1=1), (f1=2, f2=2), and (f0=2, f2=2)
     * through f1: 54 - 4 = 50. */
    synth s = {4, {3, 3, 3, 3}, rule_chain};
    iohw_pw_array a = check_against_brute_force(&s, 3);
    cr_expect_eq(a.pairs_coexisting, 50);
    iohw_pw_array_free(&a);
}

Test(pairwise, mixed_factor_sizes_with_constraints_match_brute_force)
{
    synth s = {5, {2, 3, 4, 2, 5}, rule_mixed};
    for (uint64_t seed = 1; seed <= 5; seed++) {
        iohw_pw_array a = check_against_brute_force(&s, seed);
        iohw_pw_array_free(&a);
    }
}

Test(pairwise, the_same_seed_gives_the_same_rows)
{
    synth s = {5, {2, 3, 4, 2, 5}, rule_mixed};
    iohw_pw_spec spec = synth_spec(&s, 42);
    iohw_pw_array a, b;
    cr_assert_eq(iohw_pairwise_generate(&spec, &a, NULL), 0);
    cr_assert_eq(iohw_pairwise_generate(&spec, &b, NULL), 0);
    cr_assert_eq(a.nrows, b.nrows);
    cr_expect_eq(memcmp(a.rows, b.rows, (size_t)a.nrows * 5 * sizeof(int)), 0);
    iohw_pw_array_free(&a);
    iohw_pw_array_free(&b);
}

Test(pairwise, a_set_without_valid_rows_has_no_pairs_and_no_rows)
{
    synth s = {3, {2, 2, 2}, rule_none_valid};
    iohw_pw_spec spec = synth_spec(&s, 1);
    iohw_pw_array a;
    int row[3];
    iohw_error e;
    cr_assert_eq(iohw_pairwise_generate(&spec, &a, NULL), 0);
    cr_expect_eq(a.pairs_coexisting, 0);
    cr_expect_eq(a.nrows, 0);
    iohw_pw_array_free(&a);
    cr_expect_eq(iohw_pairwise_random_row(&spec, 1, row, &e), -1);
    cr_expect(strstr(e.msg, "no valid row") != NULL, "%s", e.msg);
}

Test(pairwise, random_rows_are_valid_and_vary_with_the_seed)
{
    synth s = {5, {2, 3, 4, 2, 5}, rule_mixed};
    iohw_pw_spec spec = synth_spec(&s, 0);
    int seen[5][5] = {{0}};
    for (uint64_t seed = 0; seed < 200; seed++) {
        int row[5];
        iohw_error e;
        cr_assert_eq(iohw_pairwise_random_row(&spec, seed, row, &e), 0, "%s", e.msg);
        cr_assert(rule_mixed(row), "seed %llu: invalid row", (unsigned long long)seed);
        for (int f = 0; f < 5; f++)
            seen[f][row[f]] = 1;
    }
    /* Every value of every factor can appear in a valid row; 200 draws see
     * each one. */
    for (int f = 0; f < 5; f++)
        for (int v = 0; v < s.nv[f]; v++)
            cr_expect(seen[f][v], "factor %d value %d never drawn", f, v);
}

Test(pairwise, coverage_counts_the_pairs_the_given_rows_hold)
{
    /* Two factors of two values, no rule: 4 pairs.  Rows (0,0) and (1,1)
     * hold two; a row with -1 holds none. */
    synth s = {2, {2, 2}, NULL};
    iohw_pw_spec spec = synth_spec(&s, 0);
    const int rows[] = {0, 0, 1, 1, -1, 0};
    int64_t coexisting = -1, covered = -1;
    cr_assert_eq(iohw_pairwise_coverage(&spec, rows, 3, &coexisting, &covered, NULL), 0);
    cr_expect_eq(coexisting, 4);
    cr_expect_eq(covered, 2);
    cr_assert_eq(iohw_pairwise_coverage(&spec, rows, 0, &coexisting, &covered, NULL), 0);
    cr_expect_eq(covered, 0);
}

/* Calls of iohw_pairwise_generate that must fail, each with the part of the
 * message that names what is wrong.  Parameters are copied into the test's
 * process: arrays, not pointers. */
typedef enum bad_pw_arg {
    NO_SPEC, NO_FACTORS, NO_NVALUES, A_FACTOR_WITHOUT_VALUES, TOO_MANY_VALUES, NO_ARRAY
} bad_pw_arg;

typedef struct bad_pw {
    char name[64];      /* the scenario, named in every failure */
    bad_pw_arg arg;
    char why[32];
} bad_pw;

static bad_pw bad_pws[] = {
    {"no spec", NO_SPEC, "argument s"},
    {"no factors", NO_FACTORS, "nfactors"},
    {"3 factors without nvalues", NO_NVALUES, "nvalues"},
    {"a factor of 0 values", A_FACTOR_WITHOUT_VALUES, "factor 1 has 0 values"},
    {"a factor of more values than the maximum", TOO_MANY_VALUES, "factor 0"},
    {"no array (checked before the factors' values)", NO_ARRAY, "argument a"},
};

ParameterizedTestParameters(pairwise, rejects_a_bad_spec_naming_the_argument)
{
    return cr_make_param_array(bad_pw, bad_pws, sizeof bad_pws / sizeof bad_pws[0]);
}

ParameterizedTest(bad_pw *c, pairwise, rejects_a_bad_spec_naming_the_argument)
{
    int nv[3] = {2, 0, 2}, big[1] = {IOHW_PW_MAX_VALUES + 1};
    iohw_pw_spec spec;
    iohw_pw_array a;
    iohw_error e;
    e.msg[0] = '\0';
    memset(&spec, 0, sizeof spec);
    if (c->arg == NO_NVALUES || c->arg == A_FACTOR_WITHOUT_VALUES)
        spec.nfactors = 3;
    if (c->arg == A_FACTOR_WITHOUT_VALUES)
        spec.nvalues = nv;
    if (c->arg == TOO_MANY_VALUES || c->arg == NO_ARRAY) {
        spec.nfactors = 1;
        spec.nvalues = big;
    }
    cr_expect_eq(iohw_pairwise_generate(c->arg == NO_SPEC ? NULL : &spec,
                                        c->arg == NO_ARRAY ? NULL : &a, &e), -1,
                 "%s: accepted", c->name);
    cr_expect(strstr(e.msg, c->why) != NULL, "%s: message '%s' lacks '%s'", c->name, e.msg,
              c->why);
}

/* ---------------------------------------------------------------------- */
/* The independent checker of the smoke suite. */

/* Factors and their values, from the definitions (suites.md and the
 * comment of generators/suite_factors.c); per-axis factors describe the
 * last spatial axis, W. */
enum {
    RANK, ANISO, INPUT, KERNEL, STRIDE, DILATION, GAPS, PAD, OP, GROUPS, CG, MG,
    BATCH, BIAS, DTYPE, XL, WL, FILL, NF
};
static const char *const FACTOR[NF] = {
    "rank", "aniso", "input", "kernel", "stride", "dilation", "gaps", "pad", "op",
    "groups", "cg", "mg", "batch", "bias", "dtype", "xl", "wl", "fill"
};
static const char *const VALUES[NF][7] = {
    {"1d", "2d", "3d"},
    {"isotropic", "anisotropic"},
    {"size1", "lt-kernel", "ge-kernel"},
    {"1", "2", "3", "4", "5", "7"},
    {"1", "2", "3", "4"},
    {"1", "2", "3"},
    {"no", "yes"},
    {"none", "symmetric", "asymmetric", "crop"},
    {"0", "1", "2+"},
    {"1", "grouped", "depthwise", "depthwise-mult"},
    {"1", "3", "5", "8", "16", "17"},
    {"1", "3", "5", "8", "16", "17"},
    {"1", "many"},
    {"no", "yes"},
    {"f32", "f64", "f16", "bf16"},
    {"channels-first", "channels-last", "other"},
    {"IO", "OI", "spatial-first", "grouped", "other"},
    {"exact", "normal", "uniform", "cancel", "range", "special"},
};

static int nvalues(int f)
{
    int n = 0;
    while (n < 7 && VALUES[f][n] != NULL)
        n++;
    return n;
}

static int value_of(int f, const char *name)
{
    for (int v = 0; v < nvalues(f); v++)
        if (strcmp(VALUES[f][v], name) == 0)
            return v;
    return -1;
}

static int list_index(const int *list, int n, int64_t x)
{
    for (int i = 0; i < n; i++)
        if (list[i] == x)
            return i;
    return -1;
}

/* The factor values of a case (-1 where none applies). */
static void classify_case(const iohw_case *c, int *v)
{
    static const int kernels[] = {1, 2, 3, 4, 5, 7};
    static const int channels[] = {1, 3, 5, 8, 16, 17};
    const iohw_problem *p = &c->p;
    const int R = (int)p->rank, w = R - 1;
    const int64_t L = p->in_size[w], K = p->kernel[w], S = p->stride[w];
    const int64_t D = p->dilation[w], A = p->output_padding[w];
    const int64_t pb = p->pad_begin[w], pe = p->pad_end[w];
    const int64_t reach = (K - 1) * D;  /* how far the kernel reaches */
    const int64_t cg = p->in_channels / p->groups, mg = p->out_channels / p->groups;
    const char *xl = p->data_layout, *wl = p->weight_layout;
    const size_t nx = strlen(xl);

    v[RANK] = R - 1;
    v[ANISO] = 0;
    for (int a = 0; a < w; a++)
        if (p->in_size[a] != L || p->kernel[a] != K || p->stride[a] != S
            || p->dilation[a] != D || p->pad_begin[a] != pb || p->pad_end[a] != pe
            || p->output_padding[a] != A)
            v[ANISO] = 1;
    v[INPUT] = value_of(INPUT, L == 1 ? "size1" : L < K ? "lt-kernel" : "ge-kernel");
    v[KERNEL] = list_index(kernels, 6, K);
    v[STRIDE] = S <= 4 ? (int)S - 1 : -1;
    v[DILATION] = D <= 3 ? (int)D - 1 : -1;
    v[GAPS] = S > reach + 1 ? 1 : 0;
    if (pb == 0 && pe == 0)
        v[PAD] = value_of(PAD, "none");
    else if (pb > reach || pe > reach)
        v[PAD] = value_of(PAD, "crop");
    else
        v[PAD] = value_of(PAD, pb == pe ? "symmetric" : "asymmetric");
    const int64_t limit = S > D ? S : D;
    v[OP] = A >= limit && A > 0 ? -1 : A == 0 ? 0 : A == 1 ? 1 : 2;
    if (p->groups == 1)
        v[GROUPS] = value_of(GROUPS, "1");
    else if (p->groups != p->in_channels)
        v[GROUPS] = value_of(GROUPS, "grouped");
    else
        v[GROUPS] = value_of(GROUPS, mg == 1 ? "depthwise" : "depthwise-mult");
    v[CG] = list_index(channels, 6, cg);
    v[MG] = list_index(channels, 6, mg);
    v[BATCH] = p->batch > 1;
    v[BIAS] = p->has_bias != 0;
    v[DTYPE] = value_of(DTYPE, iohw_dtype_name(p->dtype));
    if (xl[0] == 'N' && xl[1] == 'C')
        v[XL] = value_of(XL, "channels-first");
    else if (xl[0] == 'N' && xl[nx - 1] == 'C')
        v[XL] = value_of(XL, "channels-last");
    else
        v[XL] = value_of(XL, "other");
    if (strchr(wl, 'G') != NULL)
        v[WL] = value_of(WL, "grouped");
    else if (strncmp(wl, "IO", 2) == 0)
        v[WL] = value_of(WL, "IO");
    else if (strncmp(wl, "OI", 2) == 0)
        v[WL] = value_of(WL, "OI");
    else if (strchr("DHW", wl[0]) != NULL)
        v[WL] = value_of(WL, "spatial-first");
    else
        v[WL] = value_of(WL, "other");
    v[FILL] = value_of(FILL, c->fill);
}

/* 1 when the value is one of the names (NULL-terminated list). */
static int is(int f, int v, const char *const *names)
{
    for (int i = 0; names[i] != NULL; i++)
        if (v == value_of(f, names[i]))
            return 1;
    return 0;
}

#define IS(f, v, ...) is(f, v, (const char *const[]){__VA_ARGS__, NULL})

/* The pairs that cannot coexist, from the definitions:
 *   grouped means G > 1 and Cg > 1;
 *   depthwise (either kind) means G = C_in, so Cg = 1; plain depthwise has
 *     Mg = 1, depthwise-mult Mg > 1;
 *   a 1-d problem has one axis, so it cannot be anisotropic;
 *   lt-kernel needs 1 < L < K, so K >= 3;
 *   symmetric and asymmetric pads stay within (K-1)*D >= 1, so K >= 2;
 *   gaps need S > (K-1)*D + 1 >= 1: not with S = 1, and with S <= 4 not
 *     with K >= 4.
 * Everything else can coexist (op 1 and 2+ only need max(S, D) >= 2 or 3,
 * which another factor value provides). */
static int excluded(int f, int a, int g, int b)
{
    if (f > g) {
        int t = f;
        f = g;
        g = t;
        t = a;
        a = b;
        b = t;
    }
    if (f == GROUPS && g == CG)
        return (IS(f, a, "grouped") && IS(g, b, "1"))
               || (IS(f, a, "depthwise", "depthwise-mult") && !IS(g, b, "1"));
    if (f == GROUPS && g == MG)
        return (IS(f, a, "depthwise") && !IS(g, b, "1"))
               || (IS(f, a, "depthwise-mult") && IS(g, b, "1"));
    if (f == RANK && g == ANISO)
        return IS(f, a, "1d") && IS(g, b, "anisotropic");
    if (f == INPUT && g == KERNEL)
        return IS(f, a, "lt-kernel") && IS(g, b, "1", "2");
    if (f == KERNEL && g == PAD)
        return IS(f, a, "1") && IS(g, b, "symmetric", "asymmetric");
    if (f == STRIDE && g == GAPS)
        return IS(f, a, "1") && IS(g, b, "yes");
    if (f == KERNEL && g == GAPS)
        return IS(f, a, "4", "5", "7") && IS(g, b, "yes");
    return 0;
}

Test(pairwise, every_coexisting_pair_of_factor_values_is_in_the_smoke_suite)
{
    char dir[512];
    char *out = NULL;
    snprintf(dir, sizeof dir, "%s/pairwise-smoke-%d", IOHW_TEST_TMP, (int)getpid());
    int status = iohw_test_sh(&out, "rm -rf '%s' && '%s' gen --profile smoke -o '%s' "
                              "--threads 2", dir, IOHW_BIN, dir);
    cr_assert_eq(status, 0, "iohw gen --profile smoke -o %s\n%s", dir, out);

    /* Pairs that can coexist, by the exclusions above. */
    static unsigned char seen[NF][NF][7][7];
    int64_t coexisting = 0, covered = 0, cases = 0, backward = 0;
    memset(seen, 0, sizeof seen);

    /* Classify every case of every file. */
    DIR *d = opendir(dir);
    cr_assert(d != NULL, "%s", dir);
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        size_t len = strlen(ent->d_name);
        if (len < 4 || strcmp(ent->d_name + len - 3, ".h5") != 0)
            continue;
        char path[1024];
        iohw_error e;
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        iohw_case_file *f = iohw_case_file_open(path, &e);
        cr_assert(f != NULL, "%s", e.msg);
        for (int i = 0; i < iohw_case_file_count(f); i++) {
            iohw_case c;
            int v[NF];
            cr_assert_eq(iohw_case_file_read(f, iohw_case_file_id(f, i), IOHW_READ_ATTRS, &c,
                                             &e), 0, "%s", e.msg);
            if (c.p.direction != IOHW_DIR_FWD) {
                /* A backward case holds no forward factor value. */
                backward++;
                iohw_case_free(&c);
                continue;
            }
            classify_case(&c, v);
            for (int a = 0; a < NF; a++)
                for (int b = a + 1; b < NF; b++)
                    if (v[a] >= 0 && v[b] >= 0)
                        seen[a][b][v[a]][v[b]] = 1;
            iohw_case_free(&c);
            cases++;
        }
        iohw_case_file_close(f, NULL);
    }
    closedir(d);
    /* smoke: 312 forward cases and 61 backward ones. */
    cr_assert_eq(cases, 312, "%lld forward cases", (long long)cases);
    cr_assert_eq(backward, 61, "%lld backward cases", (long long)backward);

    /* Every coexisting pair seen. */
    int missing = 0;
    for (int a = 0; a < NF; a++)
        for (int b = a + 1; b < NF; b++)
            for (int x = 0; x < nvalues(a); x++)
                for (int y = 0; y < nvalues(b); y++) {
                    if (excluded(a, x, b, y)) {
                        cr_expect(!seen[a][b][x][y], "excluded pair %s=%s %s=%s appears",
                                  FACTOR[a], VALUES[a][x], FACTOR[b], VALUES[b][y]);
                        continue;
                    }
                    coexisting++;
                    if (seen[a][b][x][y]) {
                        covered++;
                    } else if (missing++ < 20) {
                        cr_expect(0, "pair %s=%s %s=%s is in no case", FACTOR[a],
                                  VALUES[a][x], FACTOR[b], VALUES[b][y]);
                    }
                }
    cr_expect_eq(covered, coexisting, "covered %lld of %lld pairs", (long long)covered,
                 (long long)coexisting);

    /* The figure the generator prints is the same count. */
    char expect[128];
    snprintf(expect, sizeof expect, "pairwise coverage: %lld of %lld ", (long long)coexisting,
             (long long)coexisting);
    cr_expect(strstr(out, expect) != NULL, "expected '%s' in:\n%s", expect, out);
    free(out);
    cr_expect_eq(iohw_test_sh(NULL, "rm -rf '%s'", dir), 0);
}
