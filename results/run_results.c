/*
 * results/run_results.c - the pure functions over a run's results
 * (run_results.h).
 */
#include "results/run_results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void iohw_run_results_free(iohw_run_results *r)
{
    if (r == NULL)
        return;
    free(r->items);
    free(r->wall);
    free(r->backend_name);
    free(r->backend_version);
    memset(r, 0, sizeof *r);
}

int iohw_run_claim_sentence(const iohw_run_results *r, char *buf, size_t n)
{
    if (n > 0)
        buf[0] = '\0';
    if (!r->claim_known)
        return -1;
    const double pct = r->claim_pairs > 0
                       ? 100.0 * (double)r->claim_covered / (double)r->claim_pairs : 100.0;
    snprintf(buf, n, "of the %lld factor-value pairs this backend claims, the claimed "
             "cases cover %lld (%.1f%%)", (long long)r->claim_pairs,
             (long long)r->claim_covered, pct);
    return 0;
}

int64_t iohw_run_compared(const iohw_run_results *r)
{
    int64_t n = 0;
    for (int64_t i = 0; i < r->count; i++) {
        iohw_result_status s = r->items[i].status;
        n += s == IOHW_RESULT_PASS || s == IOHW_RESULT_FAIL ||
             (s == IOHW_RESULT_WAIVED && r->items[i].elements > 0);
    }
    return n;
}

int iohw_run_exit_code(const iohw_run_results *r)
{
    for (int64_t i = 0; i < r->count; i++)
        if (iohw_result_status_bad(r->items[i].status))
            return 1;
    return iohw_run_compared(r) == 0 && !r->allow_empty;
}
