/*
 * harness/timeouts.c - the per-case limit of a backend call (timeouts.h).
 */
#include "harness/timeouts.h"

#include <stdlib.h>

#include "oracle/descriptor.h"
#include "oracle/problem.h"

double iohw_case_timeout(const iohw_run_options *o, const iohw_listing_entry *e)
{
    if (!o->timeout_scaled || o->timeout <= 0)
        return o->timeout;
    iohw_desc d;
    if (e->descriptor == NULL || iohw_desc_parse(e->descriptor, &d, NULL) != 0)
        return o->timeout;
    return o->timeout + iohw_problem_macs(&d.p) / IOHW_TIMEOUT_MACS_PER_S;
}

double *iohw_case_timeouts(const iohw_run_options *o, const iohw_listing *s)
{
    double *v = malloc((size_t)(s->count > 0 ? s->count : 1) * sizeof *v);
    if (v == NULL)
        return NULL;
    for (int64_t i = 0; i < s->count; i++)
        v[i] = iohw_case_timeout(o, &s->entries[i]);
    return v;
}
