/*
 * tests/support/adapter_check.c - one case on a loaded backend, in-process
 * (see adapter_check.h).
 */
#include "support/adapter_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "judge/compare.h"
#include "judge/judge.h"
#include "sandbox/worker.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

int iohw_test_make_case(const char *desc, iohw_case *c, iohw_error *err)
{
    iohw_desc d;
    if (iohw_desc_parse(desc, &d, err) != 0)
        return iohw_error_prefix(err, "'%s'", desc);
    if (iohw_make_case(&d, "t", NULL, 1, c, err) != 0)
        return iohw_error_prefix(err, "'%s'", desc);
    return 0;
}

/* run(), or run_quant() for a quantized case (specification section
 * 11.4); a table without run_quant is an error. */
static int call_backend(const iohw_loaded_backend *lb, const iohw_problem *p,
                        const void *x, const void *w, const void *b,
                        const void *rq, void *y)
{
    const iohw_backend *t = lb->table;
    if (!iohw_problem_is_quant(p))
        return t->run(lb->ctx, p, x, w, b, y);
    if (!IOHW_HAS_MEMBER(t, iohw_backend, run_quant) || t->run_quant == NULL)
        return IOHW_UNSUPPORTED;
    return t->run_quant(lb->ctx, p, x, w, b, rq, y);
}

int iohw_test_run_case(const iohw_loaded_backend *lb, const iohw_case *c,
                       iohw_result *r, int *inputs_changed, iohw_error *err)
{
    const iohw_problem *p = &c->p;
    const iohw_dtype yd = iohw_problem_y_dtype(p);
    const size_t es = iohw_dtype_size(yd);
    const int64_t ny = iohw_problem_y_count(p);
    const size_t nx = (size_t)iohw_problem_x_count(p) * iohw_dtype_size(p->dtype);
    const size_t nw = (size_t)iohw_problem_w_count(p) *
                      iohw_dtype_size(iohw_problem_w_dtype(p));
    const size_t nb = (size_t)iohw_problem_bias_count(p) *
                      iohw_dtype_size(iohw_problem_bias_dtype(p));
    const size_t nr = iohw_quant_requant_bytes(p);
    unsigned char sent[8];
    int rc = -1;

    /* Copies of the inputs; y full of the sentinel. */
    iohw_result_init(r);
    *inputs_changed = 0;
    if ((size_t)iohw_worker_sentinel((int)yd, sent) != es)
        return iohw_error_set(err, "no sentinel for dtype %d", (int)yd);
    unsigned char *x = malloc(nx), *w = malloc(nw);
    unsigned char *b = nb > 0 ? malloc(nb) : NULL;
    unsigned char *rq = nr > 0 ? malloc(nr) : NULL;
    unsigned char *y = malloc((size_t)ny * es);
    if (x == NULL || w == NULL || y == NULL || (nb > 0 && b == NULL) ||
        (nr > 0 && rq == NULL)) {
        iohw_error_set(err, "out of memory");
        goto done;
    }
    memcpy(x, c->x, nx);
    memcpy(w, c->w, nw);
    if (nb > 0)
        memcpy(b, c->bias, nb);
    if (nr > 0)
        memcpy(rq, c->requant, nr);
    for (int64_t i = 0; i < ny; i++)
        memcpy(y + (size_t)i * es, sent, es);

    /* Run and judge. */
    int st = call_backend(lb, p, x, w, b, rq, y);
    if (st == IOHW_OK) {
        iohw_compare(c, y, sent, r);
    } else {
        r->status = IOHW_RESULT_ERROR;
        r->message = iohw_text_fmt("%s returned %d: %s",
                                   iohw_problem_is_quant(p) ? "run_quant()" : "run()", st,
                                   iohw_backend_last_error(lb));
    }
    *inputs_changed = memcmp(x, c->x, nx) != 0 || memcmp(w, c->w, nw) != 0 ||
                      (nb > 0 && memcmp(b, c->bias, nb) != 0) ||
                      (nr > 0 && memcmp(rq, c->requant, nr) != 0);
    rc = 0;
done:
    free(x);
    free(w);
    free(b);
    free(rq);
    free(y);
    return rc;
}

const char *iohw_test_describe(const iohw_result *r, char *buf, size_t n)
{
    int len = snprintf(buf, n, "%s: %s (%lld of %lld elements off, %lld "
                       "unwritten, worst %.3g u*err_bound)",
                       iohw_result_status_name(r->status), r->message,
                       (long long)r->mismatches, (long long)r->elements,
                       (long long)r->unwritten, r->worst_ratio);
    for (int k = 0; k < r->npoints && k < 3; k++) {
        if (len < 0 || (size_t)len >= n)
            break;
        const iohw_point *q = &r->points[k];
        len += snprintf(buf + len, n - (size_t)len,
                        "; at n=%lld c=%lld d=%lld h=%lld w=%lld expected "
                        "%.9g got %.9g", (long long)q->coord[0],
                        (long long)q->coord[1], (long long)q->coord[2],
                        (long long)q->coord[3], (long long)q->coord[4],
                        q->expected, q->got);
    }
    return buf;
}
