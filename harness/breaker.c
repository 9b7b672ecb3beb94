/*
 * harness/breaker.c - the circuit breaker of `iohw run` (breaker.h).
 */
#include "harness/breaker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/quant_problem.h"

/* The class index of a problem, added when new; -1 when memory runs out. */
static int class_index(iohw_breaker *b, const iohw_problem *p, int *cap)
{
    for (int k = 0; k < b->nclasses; k++)
        if (b->classes[k].rank == p->rank && b->classes[k].dtype == (int)p->dtype
            && b->classes[k].w_dtype == (int)iohw_problem_w_dtype(p)
            && b->classes[k].y_dtype == (int)iohw_problem_y_dtype(p))
            return k;
    if (b->nclasses == *cap) {
        int ncap = *cap ? 2 * *cap : 16;
        iohw_breaker_class *v = realloc(b->classes, (size_t)ncap * sizeof *v);
        if (v == NULL)
            return -1;
        b->classes = v;
        *cap = ncap;
    }
    iohw_breaker_class *c = &b->classes[b->nclasses];
    memset(c, 0, sizeof *c);
    c->rank = p->rank;
    c->dtype = (int)p->dtype;
    c->w_dtype = (int)iohw_problem_w_dtype(p);
    c->y_dtype = (int)iohw_problem_y_dtype(p);
    return b->nclasses++;
}

int iohw_breaker_init(iohw_breaker *b, const iohw_listing *s, int threshold,
                      iohw_error *err)
{
    memset(b, 0, sizeof *b);
    b->threshold = threshold;
    b->class_of = malloc((size_t)(s->count > 0 ? s->count : 1) *
                         sizeof *b->class_of);
    if (b->class_of == NULL)
        return iohw_error_set(err, "out of memory for the circuit breaker");
    int cap = 0;
    for (int64_t i = 0; i < s->count; i++) {
        const iohw_listing_entry *e = &s->entries[i];
        iohw_desc d;
        b->class_of[i] = -1;
        if (e->invalid != NULL || e->descriptor == NULL ||
            iohw_desc_parse(e->descriptor, &d, NULL) != 0)
            continue;
        b->class_of[i] = class_index(b, &d.p, &cap);
        if (b->class_of[i] < 0) {
            iohw_breaker_free(b);
            return iohw_error_set(err, "out of memory for the circuit breaker");
        }
    }
    return 0;
}

void iohw_breaker_free(iohw_breaker *b)
{
    free(b->class_of);
    free(b->classes);
    memset(b, 0, sizeof *b);
}

void iohw_breaker_timeout(iohw_breaker *b, int64_t i)
{
    if (b->class_of != NULL && b->class_of[i] >= 0)
        b->classes[b->class_of[i]].timeouts++;
}

int iohw_breaker_left_out(const iohw_result *r)
{
    return r->status == IOHW_RESULT_TIMEOUT &&
           strncmp(r->message, IOHW_BREAKER_NOT_RUN,
                   strlen(IOHW_BREAKER_NOT_RUN)) == 0;
}

void iohw_breaker_resumed(iohw_breaker *b, int64_t i, const iohw_result *r)
{
    if (r->status == IOHW_RESULT_TIMEOUT && !iohw_breaker_left_out(r))
        iohw_breaker_timeout(b, i);
}

int iohw_breaker_open(const iohw_breaker *b, int64_t i, char *msg, size_t n)
{
    if (b->threshold <= 0 || b->class_of == NULL || b->class_of[i] < 0)
        return 0;
    const iohw_breaker_class *c = &b->classes[b->class_of[i]];
    if (c->timeouts < b->threshold)
        return 0;
    char types[32];
    if (c->w_dtype == c->dtype && c->y_dtype == c->dtype)
        snprintf(types, sizeof types, "%s", iohw_dtype_name((iohw_dtype)c->dtype));
    else
        snprintf(types, sizeof types, "%s/%s/%s", iohw_dtype_name((iohw_dtype)c->dtype),
                 iohw_dtype_name((iohw_dtype)c->w_dtype),
                 iohw_dtype_name((iohw_dtype)c->y_dtype));
    snprintf(msg, n, IOHW_BREAKER_NOT_RUN "%lld case%s of this class (rank %u, %s) timed "
             "out (the circuit breaker, --breaker %d)", (long long)c->timeouts,
             c->timeouts == 1 ? "" : "s", (unsigned)c->rank, types, b->threshold);
    return 1;
}
