/*
 * generators/pairwise.c - greedy covering arrays of strength 2 under a
 * validity predicate (see pairwise.h).
 *
 * Definitions:
 *   F          number of factors, V[f] values of factor f;
 *   pair       (f = a, g = b) with f < g, numbered
 *                index = base[f][g] + a * V[g] + b;
 *   state      per pair: NONE (no valid row holds it), OPEN (can coexist,
 *              not yet covered), DONE (covered by a kept row);
 *   complete   a partial row (values -1 where unchosen) can be completed
 *              when a depth-first search over the unchosen factors, in
 *              index order, values in index order (or shuffled for random
 *              rows), pruned by the predicate, reaches a valid full row
 *              within node_limit nodes.
 *
 * Steps: (1) mark every pair NONE or OPEN by a completion search from the
 * pair alone; (2) while a pair is OPEN, build `candidates` rows and keep the
 * one that covers the most OPEN pairs:
 *   - start from an OPEN pair (the first at or after a random index),
 *   - visit the other factors in a random order; give each the value that
 *     covers the most OPEN pairs with the factors already set (ties broken
 *     by a random key), trying the next best while the row cannot be
 *     completed.
 */
#include "generators/pairwise.h"

#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"

#define DEFAULT_CANDIDATES 8
#define DEFAULT_NODE_LIMIT 1000000
#define DEFAULT_MAX_ROWS 100000

enum { PAIR_NONE = 0, PAIR_OPEN = 1, PAIR_DONE = 2 };

typedef struct pw {
    const iohw_pw_spec *s;
    int F;
    int V[IOHW_PW_MAX_FACTORS];
    int64_t base[IOHW_PW_MAX_FACTORS][IOHW_PW_MAX_FACTORS];
    int64_t npairs;
    unsigned char *state;     /* [npairs] */
    int64_t open;             /* pairs in state OPEN */
    int64_t node_limit;
    int64_t cut;              /* searches stopped by node_limit */
    iohw_rng *shuffle;        /* non-NULL: random value order in searches */
} pw;

static int check_spec(const iohw_pw_spec *s, iohw_error *err)
{
    if (s == NULL)
        return iohw_error_set(err, "pairwise: argument s is NULL");
    if (s->nfactors < 1 || s->nfactors > IOHW_PW_MAX_FACTORS)
        return iohw_error_set(err, "pairwise: nfactors is %d; expected 1 to %d",
                              s->nfactors, IOHW_PW_MAX_FACTORS);
    if (s->nvalues == NULL)
        return iohw_error_set(err, "pairwise: nvalues is NULL");
    for (int f = 0; f < s->nfactors; f++)
        if (s->nvalues[f] < 1 || s->nvalues[f] > IOHW_PW_MAX_VALUES)
            return iohw_error_set(err, "pairwise: factor %d has %d values; "
                                  "expected 1 to %d", f, s->nvalues[f],
                                  IOHW_PW_MAX_VALUES);
    if (s->candidates < 0)
        return iohw_error_set(err, "pairwise: candidates is %d; expected >= 0",
                              s->candidates);
    if (s->node_limit < 0)
        return iohw_error_set(err, "pairwise: node_limit is %lld; expected >= 0",
                              (long long)s->node_limit);
    if (s->max_rows < 0)
        return iohw_error_set(err, "pairwise: max_rows is %d; expected >= 0",
                              s->max_rows);
    return 0;
}

/* Sets up the pair numbering (states all NONE). */
static int pw_init(pw *w, const iohw_pw_spec *s, iohw_error *err)
{
    memset(w, 0, sizeof *w);
    if (check_spec(s, err) != 0)
        return -1;
    w->s = s;
    w->F = s->nfactors;
    for (int f = 0; f < w->F; f++)
        w->V[f] = s->nvalues[f];
    w->node_limit = s->node_limit > 0 ? s->node_limit : DEFAULT_NODE_LIMIT;
    for (int f = 0; f < w->F; f++)
        for (int g = f + 1; g < w->F; g++) {
            w->base[f][g] = w->npairs;
            w->npairs += (int64_t)w->V[f] * w->V[g];
        }
    w->state = calloc((size_t)(w->npairs > 0 ? w->npairs : 1), 1);
    if (w->state == NULL)
        return iohw_error_set(err, "pairwise: out of memory for %lld pairs",
                              (long long)w->npairs);
    return 0;
}

static void pw_free(pw *w)
{
    free(w->state);
    w->state = NULL;
}

static int64_t pair_index(const pw *w, int f, int a, int g, int b)
{
    if (f > g) {
        int t = f;
        f = g;
        g = t;
        t = a;
        a = b;
        b = t;
    }
    return w->base[f][g] + (int64_t)a * w->V[g] + b;
}

static int valid(const pw *w, const int *row)
{
    return w->s->valid == NULL || w->s->valid(row, w->s->ctx) != 0;
}

/* Depth-first search for a valid completion of row; on success row holds
 * it, on failure row is as it was. */
static int search(pw *w, int *row, int64_t *nodes)
{
    int f, order[IOHW_PW_MAX_VALUES];

    if (*nodes <= 0)
        return 0;
    (*nodes)--;
    if (!valid(w, row))
        return 0;
    for (f = 0; f < w->F && row[f] >= 0; f++)
        ;
    if (f == w->F)
        return 1;

    /* Values in index order, or shuffled (Fisher-Yates). */
    for (int v = 0; v < w->V[f]; v++)
        order[v] = v;
    if (w->shuffle != NULL)
        for (int v = w->V[f] - 1; v > 0; v--) {
            int j = (int)iohw_rng_range(w->shuffle, 0, v);
            int t = order[v];
            order[v] = order[j];
            order[j] = t;
        }
    for (int v = 0; v < w->V[f]; v++) {
        row[f] = order[v];
        if (search(w, row, nodes))
            return 1;  /* row holds the valid completion */
    }
    row[f] = -1;
    return 0;
}

/* 1 when row can be completed; row is left unchanged. */
static int completable(pw *w, const int *row)
{
    int tmp[IOHW_PW_MAX_FACTORS];
    int64_t nodes = w->node_limit;
    memcpy(tmp, row, (size_t)w->F * sizeof *tmp);
    int ok = search(w, tmp, &nodes);
    if (!ok && nodes <= 0)
        w->cut++;
    return ok;
}

/* Marks every pair NONE or OPEN. */
static void mark_coexisting(pw *w)
{
    int row[IOHW_PW_MAX_FACTORS];
    for (int f = 0; f < w->F; f++)
        row[f] = -1;
    w->open = 0;
    for (int f = 0; f < w->F; f++)
        for (int g = f + 1; g < w->F; g++)
            for (int a = 0; a < w->V[f]; a++)
                for (int b = 0; b < w->V[g]; b++) {
                    row[f] = a;
                    row[g] = b;
                    int ok = completable(w, row);
                    w->state[pair_index(w, f, a, g, b)] = ok ? PAIR_OPEN : PAIR_NONE;
                    w->open += ok;
                    row[f] = -1;
                    row[g] = -1;
                }
}

/* OPEN pairs a complete row would cover. */
static int64_t row_gain(const pw *w, const int *row)
{
    int64_t gain = 0;
    for (int f = 0; f < w->F; f++)
        for (int g = f + 1; g < w->F; g++)
            gain += w->state[pair_index(w, f, row[f], g, row[g])] == PAIR_OPEN;
    return gain;
}

/* One candidate row, started from the first OPEN pair at or after a random
 * index.  Returns 0, or -1 when the row could not be completed (only when
 * completion searches were cut). */
static int candidate(pw *w, iohw_rng *rng, int *row)
{
    int order[IOHW_PW_MAX_FACTORS], nset = 0;
    int64_t start = iohw_rng_range(rng, 0, w->npairs - 1), p = -1;

    for (int64_t j = 0; j < w->npairs; j++) {
        int64_t q = (start + j) % w->npairs;
        if (w->state[q] == PAIR_OPEN) {
            p = q;
            break;
        }
    }
    if (p < 0)
        return -1;

    /* Decode the pair. */
    for (int f = 0; f < w->F; f++)
        row[f] = -1;
    for (int f = 0; f < w->F && nset == 0; f++)
        for (int g = f + 1; g < w->F; g++) {
            int64_t size = (int64_t)w->V[f] * w->V[g];
            if (p >= w->base[f][g] && p < w->base[f][g] + size) {
                row[f] = (int)((p - w->base[f][g]) / w->V[g]);
                row[g] = (int)((p - w->base[f][g]) % w->V[g]);
                nset = 2;
                break;
            }
        }

    /* The other factors in a random order. */
    int n = 0;
    for (int f = 0; f < w->F; f++)
        if (row[f] < 0)
            order[n++] = f;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)iohw_rng_range(rng, 0, i);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }

    for (int i = 0; i < n; i++) {
        const int f = order[i];
        int64_t gain[IOHW_PW_MAX_VALUES];
        uint64_t key[IOHW_PW_MAX_VALUES];
        int tried[IOHW_PW_MAX_VALUES] = {0};

        for (int v = 0; v < w->V[f]; v++) {
            gain[v] = 0;
            key[v] = iohw_rng_next(rng);
            for (int g = 0; g < w->F; g++)
                if (g != f && row[g] >= 0)
                    gain[v] += w->state[pair_index(w, f, v, g, row[g])] == PAIR_OPEN;
        }
        /* Best first: the largest gain, ties by key. */
        int chosen = -1;
        for (int attempt = 0; attempt < w->V[f] && chosen < 0; attempt++) {
            int best = -1;
            for (int v = 0; v < w->V[f]; v++)
                if (!tried[v] && (best < 0 || gain[v] > gain[best]
                                  || (gain[v] == gain[best] && key[v] > key[best])))
                    best = v;
            tried[best] = 1;
            row[f] = best;
            if (completable(w, row))
                chosen = best;
            else
                row[f] = -1;
        }
        if (chosen < 0)
            return -1;
    }
    return valid(w, row) ? 0 : -1;
}

static void cover(pw *w, const int *row)
{
    for (int f = 0; f < w->F; f++)
        for (int g = f + 1; g < w->F; g++) {
            int64_t q = pair_index(w, f, row[f], g, row[g]);
            if (w->state[q] == PAIR_OPEN) {
                w->state[q] = PAIR_DONE;
                w->open--;
            }
        }
}

int iohw_pairwise_generate(const iohw_pw_spec *s, iohw_pw_array *a,
                           iohw_error *err)
{
    pw w;
    iohw_rng rng;
    int cap = 0;
    int *best = NULL, *cand = NULL;

    /* Test the arguments. */
    if (a == NULL)
        return iohw_error_set(err, "pairwise: argument a is NULL");
    memset(a, 0, sizeof *a);
    if (pw_init(&w, s, err) != 0)
        return -1;
    const int ncand = s->candidates > 0 ? s->candidates : DEFAULT_CANDIDATES;
    const int max_rows = s->max_rows > 0 ? s->max_rows : DEFAULT_MAX_ROWS;
    a->nfactors = w.F;
    best = malloc((size_t)w.F * sizeof *best);
    cand = malloc((size_t)w.F * sizeof *cand);
    if (best == NULL || cand == NULL) {
        iohw_error_set(err, "pairwise: out of memory");
        goto fail;
    }

    /* Which pairs can coexist. */
    mark_coexisting(&w);
    a->pairs_coexisting = w.open;

    /* Rows until every coexisting pair is covered. */
    iohw_rng_seed(&rng, s->seed);
    while (w.open > 0 && a->nrows < max_rows) {
        int64_t best_gain = -1;
        for (int c = 0; c < ncand; c++) {
            if (candidate(&w, &rng, cand) != 0)
                continue;
            int64_t gain = row_gain(&w, cand);
            if (gain > best_gain) {
                best_gain = gain;
                memcpy(best, cand, (size_t)w.F * sizeof *best);
            }
        }
        if (best_gain <= 0) {
            /* Only possible when searches were cut: give up the pairs the
             * candidates could not place, so the loop ends. */
            for (int64_t q = 0; q < w.npairs; q++)
                if (w.state[q] == PAIR_OPEN) {
                    w.state[q] = PAIR_NONE;
                    w.open--;
                    a->pairs_coexisting--;
                    break;
                }
            continue;
        }
        if (a->nrows == cap) {
            int ncap = cap > 0 ? 2 * cap : 64;
            int *rows = realloc(a->rows, (size_t)ncap * (size_t)w.F * sizeof *rows);
            if (rows == NULL) {
                iohw_error_set(err, "pairwise: out of memory for %d rows", ncap);
                goto fail;
            }
            a->rows = rows;
            cap = ncap;
        }
        memcpy(a->rows + (size_t)a->nrows * (size_t)w.F, best,
               (size_t)w.F * sizeof *best);
        a->nrows++;
        cover(&w, best);
    }
    a->pairs_covered = a->pairs_coexisting - w.open;
    a->searches_cut = w.cut;
    free(best);
    free(cand);
    pw_free(&w);
    return 0;

fail:
    free(best);
    free(cand);
    pw_free(&w);
    iohw_pw_array_free(a);
    return -1;
}

void iohw_pw_array_free(iohw_pw_array *a)
{
    if (a == NULL)
        return;
    free(a->rows);
    memset(a, 0, sizeof *a);
}

int iohw_pairwise_coverage(const iohw_pw_spec *s, const int *rows, int nrows,
                           int64_t *coexisting, int64_t *covered,
                           iohw_error *err)
{
    pw w;

    /* Test the arguments. */
    if (coexisting == NULL || covered == NULL)
        return iohw_error_set(err, "pairwise coverage: coexisting or covered is NULL");
    if (nrows < 0 || (nrows > 0 && rows == NULL))
        return iohw_error_set(err, "pairwise coverage: rows is NULL or nrows < 0");
    if (pw_init(&w, s, err) != 0)
        return -1;

    mark_coexisting(&w);
    *coexisting = w.open;
    for (int r = 0; r < nrows; r++) {
        const int *row = rows + (size_t)r * (size_t)w.F;
        for (int f = 0; f < w.F; f++)
            for (int g = f + 1; g < w.F; g++) {
                if (row[f] < 0 || row[f] >= w.V[f] || row[g] < 0 || row[g] >= w.V[g])
                    continue;
                int64_t q = pair_index(&w, f, row[f], g, row[g]);
                if (w.state[q] == PAIR_OPEN) {
                    w.state[q] = PAIR_DONE;
                    w.open--;
                }
            }
    }
    *covered = *coexisting - w.open;
    pw_free(&w);
    return 0;
}

int iohw_pairwise_random_row(const iohw_pw_spec *s, uint64_t seed, int *row,
                             iohw_error *err)
{
    pw w;
    iohw_rng rng;

    /* Test the arguments. */
    if (row == NULL)
        return iohw_error_set(err, "pairwise random row: argument row is NULL");
    if (check_spec(s, err) != 0)
        return -1;

    /* No pair table needed: only the search. */
    memset(&w, 0, sizeof w);
    w.s = s;
    w.F = s->nfactors;
    for (int f = 0; f < w.F; f++)
        w.V[f] = s->nvalues[f];
    w.node_limit = s->node_limit > 0 ? s->node_limit : DEFAULT_NODE_LIMIT;
    iohw_rng_seed(&rng, seed);
    w.shuffle = &rng;
    for (int f = 0; f < w.F; f++)
        row[f] = -1;
    int64_t nodes = w.node_limit;
    if (!search(&w, row, &nodes))
        return iohw_error_set(err, "pairwise random row: no valid row found");
    return 0;
}
