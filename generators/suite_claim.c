/*
 * generators/suite_claim.c - a backend's claim over the pairwise factors,
 * and suites inside it (see claim.h).
 *
 * Definitions:
 *   value number  offset[f] + a for value a of factor f (claim.h);
 *   row           values of every factor (pairwise.h), valid under the
 *                 suite's predicate (suite_factors.c);
 *   asked row     a row whose problems went to accepts(): variant 0, then
 *                 variants 1 .. VARIANTS-1 (other layout permutations, N,
 *                 G, lengths, pad sides), then variant VARIANTS (the
 *                 weights in O<spatial>I, for the weight class "other")
 *                 until one is accepted; the accepted variant is cached by
 *                 the row without its fill;
 *   witness       an accepted row; kept (up to WITNESS_MAX) as a base from
 *                 which rows for other values are repaired;
 *   budget        a value or pair is looked for from WITNESS_TRY witnesses
 *                 and BASE_TRY covering-array rows (fewer lose claimed
 *                 pairs: tests/test_claim.c); the covering arrays inside
 *                 the claim weigh ARRAY_CANDIDATES candidates per row (each
 *                 complete candidate is asked, until ARRAY_REFUSED calls
 *                 went to refused rows; then only rows already asked): a
 *                 smoke claim costs a few thousand supports() calls
 *                 (tests/test_claim_cost.c, tests/test_claim_layouts.c);
 *   repair        a depth-first search over the factors in order, the fixed
 *                 values set, every other factor trying the base row's
 *                 value first and then the others in index order (for the
 *                 pairs of step 3, live values only), pruned by the
 *                 suite's predicate, within NODE_LIMIT nodes.
 */
#include "generators/claim.h"

#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "generators/suite_internal.h"

#define F IOHW__NFACTORS
#define WITNESS_MAX 64
#define WITNESS_TRY 16
#define BASE_TRY 24
#define NODE_LIMIT 5000
#define ARRAY_NODE_LIMIT 20000
#define ARRAY_CANDIDATES 2
#define ARRAY_REFUSED 1500
#define ARRAY_SEED UINT64_C(0x5eed0000)
#define VARIANTS 4

_Static_assert(F <= 32, "claim.h holds 32 factor offsets");

/* The answers, by row: open addressing on a 3-bit-per-factor key. */
typedef struct cache {
    uint64_t *keys;      /* 0: empty */
    unsigned char *vals;
    size_t cap, n;
} cache;

typedef struct learner {
    iohw_claim *c;
    iohw_pw_spec s;                 /* the suite's factors and predicate */
    iohw_accepts_fn accepts;
    void *ctx;
    int wit[WITNESS_MAX][F];
    int nwit;
    int (*bases)[F];                /* covering-array rows */
    int nbases;
    unsigned char live[IOHW_CLAIM_VALUES_MAX]; /* value in a claimed pair */
    int live_only;                  /* repairs use live values only */
    int64_t array_refused;          /* the arrays' calls on refused rows */
    int failed;                     /* 1 accepts() failed, 2 no memory */
} learner;

/* --- the cache ----------------------------------------------------------- */

static uint64_t row_key(const int *v)
{
    uint64_t k = 1;
    for (int f = 0; f < F; f++)
        if (f != IOHW__FACTOR_FILL)
            k = k << 3 | (uint64_t)v[f];
    return k;
}

static size_t slot(const cache *t, uint64_t key)
{
    size_t i = (size_t)(key * UINT64_C(0x9e3779b97f4a7c15) >> 20) & (t->cap - 1);
    while (t->keys[i] != 0 && t->keys[i] != key)
        i = (i + 1) & (t->cap - 1);
    return i;
}

/* The cached answer (0 or 1), or -1 when the row was never asked. */
static int cache_get(const cache *t, uint64_t key)
{
    if (t->cap == 0)
        return -1;
    size_t i = slot(t, key);
    return t->keys[i] == key ? t->vals[i] : -1;
}

static int cache_put(cache *t, uint64_t key, int val)
{
    if (2 * (t->n + 1) > t->cap) {
        cache big = {NULL, NULL, t->cap > 0 ? 2 * t->cap : 1024, 0};
        big.keys = calloc(big.cap, sizeof *big.keys);
        big.vals = calloc(big.cap, 1);
        if (big.keys == NULL || big.vals == NULL) {
            free(big.keys);
            free(big.vals);
            return -1;
        }
        for (size_t i = 0; i < t->cap; i++)
            if (t->keys[i] != 0)
                cache_put(&big, t->keys[i], t->vals[i]);
        free(t->keys);
        free(t->vals);
        *t = big;
    }
    size_t i = slot(t, key);
    t->n += t->keys[i] == 0;
    t->keys[i] = key;
    t->vals[i] = (unsigned char)val;
    return 0;
}

/* --- pairs --------------------------------------------------------------- */

static unsigned char *pair_at(const iohw_claim *c, int f, int a, int g, int b)
{
    return &c->pair[(size_t)(c->offset[f] + a) * (size_t)c->nvalues
                    + (size_t)(c->offset[g] + b)];
}

/* Marks every pair of an accepted row claimed, with every fill. */
static void mark_row(learner *L, const int *v)
{
    int row[F];
    memcpy(row, v, sizeof row);
    for (int fill = 0; fill < L->s.nvalues[IOHW__FACTOR_FILL]; fill++) {
        row[IOHW__FACTOR_FILL] = fill;
        for (int f = 0; f < F; f++) {
            L->live[L->c->offset[f] + row[f]] = 1;
            for (int g = 0; g < F; g++)
                if (g != f)
                    *pair_at(L->c, f, row[f], g, row[g]) = 1;
        }
    }
}

/* The problem of a row's variant: 0 .. VARIANTS-1 the builder's, VARIANTS
 * the deployed weight layout (suite_internal.h); -1 when it builds none. */
static int build(const int *v, int var, iohw_problem *p)
{
    return var < VARIANTS ? iohw__factors_build(v, var, p)
                          : iohw__factors_build_deployed(v, p);
}

/* The variant (0 .. VARIANTS) of the row whose problem the backend
 * accepts, the first asked in order; -1 when it accepts none (or the row
 * builds no problem); -2 when accepts() failed or memory ran out. */
static int ask_variant(learner *L, const int *v)
{
    cache *t = L->c->cache;
    const uint64_t key = row_key(v);
    int got = cache_get(t, key);
    if (got >= 0)
        return got - 1;
    iohw_problem p, prev;
    int ok = 0, var = 0, asked = 0;
    for (; var <= VARIANTS && ok == 0; var++) {
        if (build(v, var, &p) != 0) {
            if (var == 0)
                break;   /* no variant builds either */
            continue;
        }
        if (asked && memcmp(&p, &prev, sizeof p) == 0)
            continue;  /* the variant fell back to variant 0 */
        prev = p;
        asked = 1;
        ok = L->accepts(&p, L->ctx);
        L->c->asked++;
    }
    if (ok < 0 || cache_put(t, key, ok > 0 ? var : 0) != 0) {
        L->failed = ok < 0 ? 1 : 2;
        return -2;
    }
    if (ok == 0)
        return -1;
    L->c->accepted_rows++;
    mark_row(L, v);
    if (L->nwit < WITNESS_MAX)
        memcpy(L->wit[L->nwit++], v, sizeof L->wit[0]);
    return var - 1;
}

/* 1 when the backend accepts a variant of the row, 0 when not, -1 when
 * accepts() failed or memory ran out. */
static int ask(learner *L, const int *v)
{
    int var = ask_variant(L, v);
    return var >= 0 ? 1 : var == -1 ? 0 : -1;
}

/* --- learning ------------------------------------------------------------ */

static void learner_init(learner *L, iohw_claim *c, iohw_accepts_fn accepts,
                         void *ctx)
{
    memset(L, 0, sizeof *L);
    L->c = c;
    L->accepts = accepts;
    L->ctx = ctx;
    iohw__factors_spec(&L->s, ARRAY_SEED);
}

/* Completes row (fixed values set, -1 elsewhere) from factor f on, each
 * factor trying base's value first; with L->live_only, only values of
 * claimed pairs.  1 when row holds a valid row. */
static int repair(const learner *L, const int *base, int *row, int f,
                  int64_t *nodes)
{
    if (--*nodes < 0 || !L->s.valid(row, L->s.ctx))
        return 0;
    while (f < F && row[f] >= 0)
        f++;
    if (f == F)
        return 1;
    for (int k = -1; k < L->s.nvalues[f]; k++) {
        if (k == base[f])
            continue;
        row[f] = k < 0 ? base[f] : k;
        if (L->live_only && !L->live[L->c->offset[f] + row[f]])
            continue;
        if (repair(L, base, row, f + 1, nodes))
            return 1;
    }
    row[f] = -1;
    return 0;
}

/* Looks for an accepted row holding f = a (and g = b when g >= 0),
 * repaired from the witnesses, then from the covering-array rows. */
static int find_witness(learner *L, int f, int a, int g, int b)
{
    const int nwit = L->nwit < WITNESS_TRY ? L->nwit : WITNESS_TRY;
    const int nbase = L->nbases < BASE_TRY ? L->nbases : BASE_TRY;
    for (int k = 0; k < nwit + nbase; k++) {
        const int *base = k < nwit ? L->wit[k] : L->bases[k - nwit];
        int row[F];
        int64_t nodes = NODE_LIMIT;
        for (int h = 0; h < F; h++)
            row[h] = -1;
        row[f] = a;
        if (g >= 0)
            row[g] = b;
        if (!repair(L, base, row, 0, &nodes)) {
            if (nodes >= 0 && !L->live_only)
                return 0;  /* no valid row holds these values */
            continue;
        }
        int ok = ask(L, row);
        if (ok != 0)
            return ok;
    }
    return 0;
}

static int claim_init(iohw_claim *c, iohw_error *err)
{
    iohw_pw_spec s;
    iohw__factors_spec(&s, 0);
    memset(c, 0, sizeof *c);
    c->nfactors = F;
    for (int f = 0; f < F; f++) {
        c->offset[f] = c->nvalues;
        c->nvalues += s.nvalues[f];
    }
    if (c->nvalues > IOHW_CLAIM_VALUES_MAX)
        return iohw_error_set(err, "claim: %d factor values; at most %d", c->nvalues,
                              IOHW_CLAIM_VALUES_MAX);
    c->pair = calloc((size_t)c->nvalues * (size_t)c->nvalues, 1);
    c->cache = calloc(1, sizeof(cache));
    if (c->pair == NULL || c->cache == NULL)
        return iohw_error_set(err, "claim: out of memory");
    return 0;
}

/* Step 1b of claim.h, when the covering array gave no accepted row: for
 * every rank, data layout class and weight layout class, the simplest row
 * with them (every other factor at its first value), until one is
 * accepted, so that a backend taking only a few layouts (TFLite: NHWC with
 * OHWI) has a witness to repair from.  One seed only: more of them, all
 * alike, would take the places of the witnesses tried first. */
static void ask_seeds(learner *L)
{
    const int R = IOHW__FACTOR_RANK, X = IOHW__FACTOR_XL, W = IOHW__FACTOR_WL;
    for (int r = 0; r < L->s.nvalues[R]; r++)
        for (int x = 0; x < L->s.nvalues[X]; x++)
            for (int w = 0; w < L->s.nvalues[W] && !L->failed && L->nwit == 0; w++) {
                int row[F] = {0};
                row[R] = r;
                row[X] = x;
                row[W] = w;
                if (L->s.valid(row, L->s.ctx))
                    ask(L, row);
            }
}

/* Steps 2 and 3 of claim.h: every value, then every pair of live values. */
static int learn_values(learner *L)
{
    const iohw_claim *c = L->c;
    for (int f = 0; f < F; f++)
        for (int a = 0; a < L->s.nvalues[f]; a++)
            if (!L->live[c->offset[f] + a] && find_witness(L, f, a, -1, 0) < 0)
                return -1;
    L->live_only = 1;   /* step 3: rows of live values only */
    for (int f = 0; f < F; f++)
        for (int g = f + 1; g < F; g++)
            for (int a = 0; a < L->s.nvalues[f]; a++)
                for (int b = 0; b < L->s.nvalues[g]; b++) {
                    if (*pair_at(c, f, a, g, b) || !L->live[c->offset[f] + a]
                        || !L->live[c->offset[g] + b])
                        continue;
                    if (find_witness(L, f, a, g, b) < 0)
                        return -1;
                }
    return 0;
}

int iohw_claim_learn(iohw_accepts_fn accepts, void *ctx, iohw_claim *c,
                     iohw_error *err)
{
    learner L;
    iohw_pw_array a = {0};

    if (accepts == NULL || c == NULL)
        return iohw_error_set(err, "claim: argument accepts or c is NULL");
    if (claim_init(c, err) != 0)
        return -1;
    learner_init(&L, c, accepts, ctx);

    /* The factor space, and step 1: the smoke covering array. */
    if (iohw_pairwise_coverage(&L.s, NULL, 0, &c->pairs_coexisting, &c->pairs_claimed,
                               err) != 0
        || iohw_pairwise_generate(&L.s, &a, err) != 0)
        return iohw_error_prefix(err, "claim");
    L.bases = (int (*)[F])a.rows;
    L.nbases = a.nrows;
    for (int r = 0; r < a.nrows && !L.failed; r++)
        ask(&L, a.rows + (size_t)r * F);
    if (L.nwit == 0)
        ask_seeds(&L);
    if (!L.failed)
        learn_values(&L);
    iohw_pw_array_free(&a);
    if (L.failed)
        return iohw_error_set(err, "claim: %s", L.failed == 1
                              ? "asking the backend failed" : "out of memory");

    c->pairs_claimed = 0;
    for (int f = 0; f < F; f++)
        for (int g = f + 1; g < F; g++)
            for (int x = 0; x < L.s.nvalues[f]; x++)
                for (int y = 0; y < L.s.nvalues[g]; y++)
                    c->pairs_claimed += *pair_at(c, f, x, g, y);
    return 0;
}

void iohw_claim_free(iohw_claim *c)
{
    if (c == NULL)
        return;
    cache *t = c->cache;
    if (t != NULL) {
        free(t->keys);
        free(t->vals);
        free(t);
    }
    free(c->pair);
    memset(c, 0, sizeof *c);
}

int64_t iohw_claim_covered(const iohw_claim *c, const iohw_desc *descs,
                           int64_t n)
{
    if (c == NULL || c->pair == NULL)
        return 0;
    unsigned char *seen = calloc((size_t)c->nvalues * (size_t)c->nvalues, 1);
    if (seen == NULL)
        return -1;
    int64_t covered = 0;
    for (int64_t i = 0; i < n; i++) {
        int v[F];
        iohw__factors_classify(&descs[i].p, descs[i].fill, v);
        for (int f = 0; f < F; f++)
            for (int g = f + 1; g < F; g++) {
                if (v[f] < 0 || v[g] < 0)
                    continue;
                size_t q = (size_t)(c->offset[f] + v[f]) * (size_t)c->nvalues
                           + (size_t)(c->offset[g] + v[g]);
                covered += c->pair[q] && !seen[q];
                seen[q] = 1;
            }
    }
    free(seen);
    return covered;
}

/* --- suites inside the claim --------------------------------------------- */

/* The predicate of covering arrays inside the claim: the suite's, every
 * pair of chosen values claimed, and for a complete row the backend's
 * answer. */
static int claim_valid(const int *v, void *ctx)
{
    learner *L = ctx;
    int complete = 1;
    if (L->failed || !L->s.valid(v, L->s.ctx))
        return 0;
    for (int f = 0; f < F; f++) {
        if (v[f] < 0) {
            complete = 0;
            continue;
        }
        for (int g = 0; g < f; g++)
            if (v[g] >= 0 && !*pair_at(L->c, f, v[f], g, v[g]))
                return 0;
    }
    if (!complete)
        return 1;
    const int known = cache_get(L->c->cache, row_key(v)) >= 0;
    if (!known && L->array_refused >= ARRAY_REFUSED)
        return 0;   /* the budget is spent: known rows only */
    const int64_t before = L->c->asked;
    const int ok = ask(L, v);
    if (ok == 0)
        L->array_refused += L->c->asked - before;
    return ok == 1;
}

/* Adds the row as the next pairwise case: its variant when the backend
 * accepts that too, else the variant it accepted while learning. */
static int add_row(learner *L, iohw_plan *plan, const int *v, iohw_error *err)
{
    iohw_desc d;
    memset(&d, 0, sizeof d);
    const int64_t variant = plan->file_cases[IOHW__CAT_PAIRWISE];
    int ok = iohw__factors_build(v, variant, &d.p) == 0 ? L->accepts(&d.p, L->ctx) : 0;
    if (ok < 0)
        return iohw_error_set(err, "claim: asking the backend failed");
    if (ok == 0) {
        int var = ask_variant(L, v);
        if (var < 0 || build(v, var, &d.p) != 0)
            return iohw_error_set(err, "claim: the builder rejected an accepted row");
    }
    snprintf(d.fill, sizeof d.fill, "%s", iohw_fill_names()[v[IOHW__FACTOR_FILL]]);
    return iohw__plan_add(plan, IOHW__CAT_PAIRWISE, &d, "pairwise", 0, err);
}

/* The covering arrays inside the claim, one per array of the profile. */
static int plan_arrays(learner *L, int arrays, iohw_plan *plan, iohw_error *err)
{
    iohw_pw_spec s = L->s;
    s.valid = claim_valid;
    s.ctx = L;
    s.node_limit = ARRAY_NODE_LIMIT;
    s.candidates = ARRAY_CANDIDATES;   /* each complete candidate is asked */
    for (int k = 0; k < arrays && L->c->pairs_claimed > 0; k++) {
        iohw_pw_array a;
        s.seed = ARRAY_SEED + (uint64_t)k;
        if (iohw_pairwise_generate(&s, &a, err) != 0)
            return iohw_error_prefix(err, "claim: covering array %d", k);
        int rc = L->failed ? iohw_error_set(err, "claim: asking the backend failed") : 0;
        for (int r = 0; r < a.nrows && rc == 0; r++)
            rc = add_row(L, plan, a.rows + (size_t)r * F, err);
        plan->pairwise_rows += a.nrows;
        iohw_pw_array_free(&a);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* The profile's other cases that the backend accepts; counts the
 * profile's accepted cases and the claimed pairs they hold.  A backward
 * case goes to accepts() with its direction (specification section 13),
 * so a backend without that direction's entry point answers 0 for it (the
 * probe asks supports() only when the entry point is there); it holds no
 * forward factor value, so it never counts for a claimed pair. */
static int plan_accepted(learner *L, const iohw_plan *base, iohw_plan *plan,
                         iohw_error *err)
{
    iohw_desc *held = malloc((size_t)(base->count > 0 ? base->count : 1) * sizeof *held);
    if (held == NULL)
        return iohw_error_set(err, "claim: out of memory");
    int64_t n = 0;
    for (int64_t i = 0; i < base->count; i++) {
        const iohw_plan_case *pc = &base->cases[i];
        int ok = L->accepts(&pc->desc.p, L->ctx);
        if (ok < 0) {
            free(held);
            return iohw_error_set(err, "claim: asking the backend failed");
        }
        if (!ok)
            continue;
        held[n++] = pc->desc;
        if (pc->file != IOHW__CAT_PAIRWISE
            && iohw__plan_add(plan, pc->file, &pc->desc, pc->tags, 1, err) != 0) {
            free(held);
            return -1;
        }
        if (pc->file == IOHW__CAT_MODELS)   /* its ids name network and layer */
            memcpy(plan->cases[plan->count - 1].id, pc->id, sizeof pc->id);
    }
    plan->profile_cases = base->count;
    plan->profile_claimed = n;
    plan->profile_claim_covered = iohw_claim_covered(L->c, held, n);
    free(held);
    return 0;
}

int iohw_plan_for_claim(const char *profile, uint64_t seed, iohw_claim *c,
                        iohw_accepts_fn accepts, void *ctx, iohw_plan *plan,
                        iohw_error *err)
{
    iohw_plan base;
    learner L;

    /* Test the arguments. */
    if (plan == NULL || c == NULL || c->pair == NULL || accepts == NULL)
        return iohw_error_set(err, "claim: argument plan, c or accepts is NULL");
    memset(plan, 0, sizeof *plan);
    if (iohw_plan_profile(profile, seed, &base, err) != 0)
        return -1;
    learner_init(&L, c, accepts, ctx);

    snprintf(plan->profile, sizeof plan->profile, "%s", base.profile);
    plan->seed = seed;
    plan->nfiles = base.nfiles;
    memcpy(plan->files, base.files, sizeof plan->files);
    int rc = plan_arrays(&L, iohw__profile_find(profile)->pairwise_arrays, plan, err);
    if (rc == 0)
        rc = plan_accepted(&L, &base, plan, err);
    if (rc == 0)
        rc = iohw__plan_coverage(plan, err);
    if (rc == 0)
        rc = iohw__plan_backward_coverage(plan, err);
    iohw_plan_free(&base);
    if (rc != 0) {
        iohw_plan_free(plan);
        return -1;
    }
    plan->claim_pairs = c->pairs_claimed;
    iohw_desc *all = malloc((size_t)(plan->count > 0 ? plan->count : 1) * sizeof *all);
    if (all == NULL) {
        iohw_plan_free(plan);
        return iohw_error_set(err, "claim: out of memory");
    }
    for (int64_t i = 0; i < plan->count; i++)
        all[i] = plan->cases[i].desc;
    plan->claim_covered = iohw_claim_covered(c, all, plan->count);
    free(all);
    return 0;
}
