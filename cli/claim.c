/*
 * cli/claim.c - a backend's claim (generators/claim.h) learned through a
 * probe child (sandbox/probe.h): the cli joins the two, so that the
 * generators never reach the harness.
 */
#include "cli/claim.h"

#include <stdlib.h>
#include <string.h>

#include "oracle/clock.h"
#include "oracle/descriptor.h"

/* The memo: answers by problem, open addressing on a hash of its bytes
 * (problems are built from zeroed structs; a byte that differs only costs
 * one more call). */
typedef struct memo {
    iohw_problem *keys;
    signed char *vals;   /* 0 empty, 1 refused, 2 accepted */
    size_t cap, n;
} memo;

static size_t problem_hash(const iohw_problem *p)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < sizeof *p; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return (size_t)(h ^ h >> 29);
}

static size_t memo_slot(const memo *m, const iohw_problem *p)
{
    size_t i = problem_hash(p) & (m->cap - 1);
    while (m->vals[i] != 0 && memcmp(&m->keys[i], p, sizeof *p) != 0)
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* The remembered answer (0 or 1), or -1. */
static int memo_get(const memo *m, const iohw_problem *p)
{
    if (m == NULL || m->cap == 0)
        return -1;
    size_t i = memo_slot(m, p);
    return m->vals[i] != 0 ? m->vals[i] - 1 : -1;
}

/* Keeps an answer; out of memory only forgets it. */
static void memo_put(memo *m, const iohw_problem *p, int val)
{
    if (m == NULL)
        return;
    if (2 * (m->n + 1) > m->cap) {
        memo big = {NULL, NULL, m->cap > 0 ? 2 * m->cap : 1024, 0};
        big.keys = malloc(big.cap * sizeof *big.keys);
        big.vals = calloc(big.cap, 1);
        if (big.keys == NULL || big.vals == NULL) {
            free(big.keys);
            free(big.vals);
            return;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->vals[i] != 0)
                memo_put(&big, &m->keys[i], m->vals[i] - 1);
        free(m->keys);
        free(m->vals);
        *m = big;
    }
    size_t i = memo_slot(m, p);
    m->n += m->vals[i] == 0;
    m->keys[i] = *p;
    m->vals[i] = (signed char)(val + 1);
}

static void show_progress(iohw_cli_claim *cc, int last)
{
    const double now = iohw_clock_s();
    if (cc->progress == NULL || (!last && now - cc->shown < IOHW_CLI_CLAIM_PROGRESS_S))
        return;
    cc->shown = now;
    fprintf(cc->progress, "gen: asking the backend what it claims: %lld "
            "supports() calls, %lld answers remembered, %.0f s%s\n",
            (long long)cc->probe.calls, (long long)cc->remembered, now - cc->t0,
            last ? " (done)" : "");
    fflush(cc->progress);
}

/* generators/claim.h's accepts(): a remembered answer, or the probe
 * child's. */
static int accepts(const iohw_problem *p, void *ctx)
{
    iohw_cli_claim *cc = ctx;
    int ok = memo_get(cc->memo, p);
    if (ok >= 0) {
        cc->remembered++;
        return ok;
    }
    ok = iohw_probe_supports(&cc->probe, p, &cc->err);
    if (ok >= 0)
        memo_put(cc->memo, p, ok);
    show_progress(cc, 0);
    return ok;
}

int iohw_cli_claim_learn(const char *backend, iohw_cli_claim *cc,
                         FILE *progress, iohw_error *err)
{
    memset(cc, 0, sizeof *cc);
    cc->progress = progress;
    cc->t0 = cc->shown = iohw_clock_s();
    cc->memo = calloc(1, sizeof(memo));
    if (cc->memo == NULL)
        return iohw_error_set(err, "claim: out of memory");
    if (iohw_probe_start(backend, &cc->probe, err) != 0) {
        free(cc->memo);
        cc->memo = NULL;
        return -1;
    }
    if (iohw_claim_learn(accepts, cc, &cc->claim, err) != 0) {
        if (cc->err.msg[0] != '\0')
            *err = cc->err;
        iohw_cli_claim_free(cc);
        return -1;
    }
    return 0;
}

int iohw_cli_claim_plan(iohw_cli_claim *cc, const char *profile, uint64_t seed,
                        iohw_plan *plan, iohw_error *err)
{
    if (iohw_plan_for_claim(profile, seed, &cc->claim, accepts, cc, plan, err) != 0) {
        if (cc->err.msg[0] != '\0')
            *err = cc->err;
        return -1;
    }
    show_progress(cc, 1);
    return 0;
}

void iohw_cli_claim_free(iohw_cli_claim *cc)
{
    iohw_probe_stop(&cc->probe);
    iohw_claim_free(&cc->claim);
    memo *m = cc->memo;
    if (m != NULL) {
        free(m->keys);
        free(m->vals);
        free(m);
    }
    cc->memo = NULL;
}

int iohw_cli_claim_coverage(const char *backend, iohw_run_results *r,
                            iohw_error *err)
{
    iohw_cli_claim cc;
    if (iohw_cli_claim_learn(backend, &cc, NULL, err) != 0)
        return -1;
    iohw_desc *d = malloc((size_t)(r->count > 0 ? r->count : 1) * sizeof *d);
    if (d == NULL) {
        iohw_cli_claim_free(&cc);
        return iohw_error_set(err, "claim coverage: out of memory");
    }
    int64_t n = 0;
    for (int64_t i = 0; i < r->count; i++)
        if (r->items[i].status != IOHW_RESULT_UNSUPPORTED
            && iohw_desc_parse(r->items[i].descriptor, &d[n], NULL) == 0)
            n++;
    r->claim_pairs = cc.claim.pairs_claimed;
    r->claim_covered = iohw_claim_covered(&cc.claim, d, n);
    r->claim_known = r->claim_covered >= 0;
    free(d);
    iohw_cli_claim_free(&cc);
    return 0;
}
