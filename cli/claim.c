/*
 * cli/claim.c - a backend's claim (generators/claim.h) learned through a
 * probe child (sandbox/probe.h): the cli joins the two, so that the
 * generators never reach the harness.
 */
#include "cli/claim.h"

#include <stdlib.h>
#include <string.h>

#include "oracle/descriptor.h"

/* generators/claim.h's accepts(): asks the probe child. */
static int accepts(const iohw_problem *p, void *ctx)
{
    iohw_cli_claim *cc = ctx;
    return iohw_probe_supports(&cc->probe, p, &cc->err);
}

int iohw_cli_claim_learn(const char *backend, iohw_cli_claim *cc,
                         iohw_error *err)
{
    memset(cc, 0, sizeof *cc);
    if (iohw_probe_start(backend, &cc->probe, err) != 0)
        return -1;
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
    return 0;
}

void iohw_cli_claim_free(iohw_cli_claim *cc)
{
    iohw_probe_stop(&cc->probe);
    iohw_claim_free(&cc->claim);
}

int iohw_cli_claim_coverage(const char *backend, iohw_run_results *r,
                            iohw_error *err)
{
    iohw_cli_claim cc;
    if (iohw_cli_claim_learn(backend, &cc, err) != 0)
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
