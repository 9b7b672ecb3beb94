/*
 * sandbox/worker_repeat.c - repeated run() calls and the reference's time
 * (see worker_repeat.h).
 */
#include "sandbox/worker_repeat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/loader.h"
#include "sandbox/run_call.h"
#include "sandbox/worker.h"
#include "sandbox/worker_rude.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "oracle/clock.h"

void iohw__repeat_start(iohw__repeat *rp, int want, int ref, unsigned char *y,
                        size_t len)
{
    memset(rp, 0, sizeof *rp);
    rp->want = 1;
    rp->t = &rp->one;
    rp->y = y;
    rp->len = len;
    if (want < 1)
        want = 1;
    if (y == NULL)
        return;
    double *t = want > 1 ? malloc((size_t)want * sizeof *t) : &rp->one;
    rp->before = want > 1 ? malloc(len > 0 ? len : 1) : NULL;
    rp->rt = ref ? malloc((size_t)want * sizeof *rp->rt) : NULL;
    rp->ry = ref ? malloc(len > 0 ? len : 1) : NULL;
    if (t == NULL || (want > 1 && rp->before == NULL) ||
        (ref && (rp->rt == NULL || rp->ry == NULL))) {
        if (t != &rp->one)
            free(t);
        iohw__repeat_free(rp);
        return;
    }
    rp->t = t;
    if (want > 1)
        memcpy(rp->before, y, len);
    rp->want = want;
    rp->ref = ref;
}

int iohw__repeat_next(iohw__repeat *rp)
{
    if (rp->n >= rp->want)
        return 0;
    if (rp->first == NULL) {
        rp->first = malloc(rp->len > 0 ? rp->len : 1);
        if (rp->first == NULL) {
            rp->want = rp->n;
            return 0;
        }
        memcpy(rp->first, rp->y, rp->len);
    }
    memcpy(rp->y, rp->before, rp->len);
    return 1;
}

int iohw__repeat_done(iohw__repeat *rp, int rc, const char **warn)
{
    if (rc != IOHW_OK) {
        char text[200];
        snprintf(text, sizeof text, "run() returned %s on repeated call %d of "
                 "%d (the first call's output is judged)",
                 iohw_backend_status_name(rc), rp->n + 1, rp->want);
        iohw__warn_add(warn, text);
        rp->want = rp->n;
        return -1;
    }
    if (rp->differs == 0 && memcmp(rp->y, rp->first, rp->len) != 0)
        rp->differs = rp->n + 1;
    rp->n++;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v (n >= 1), which gets sorted. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void iohw__repeat_finish(iohw__repeat *rp, double *med, double *min,
                         const char **warn)
{
    if (rp->first != NULL)
        memcpy(rp->y, rp->first, rp->len);
    if (rp->n < 1)
        rp->n = 1;
    *med = median(rp->t, rp->n);
    *min = rp->t[0];
    if (rp->differs > 0) {
        char text[200];
        snprintf(text, sizeof text, IOHW_REPEAT_DIFFERS " (call %d of %d "
                 "differs from the first; the first call's output is judged)",
                 rp->differs, rp->want);
        iohw__warn_add(warn, text);
    }
}

void iohw__repeat_free(iohw__repeat *rp)
{
    if (rp->t != &rp->one)
        free(rp->t);
    free(rp->before);
    free(rp->first);
    free(rp->rt);
    free(rp->ry);
    rp->t = &rp->one;
    rp->before = rp->first = rp->ry = NULL;
    rp->rt = NULL;
    rp->ref = 0;
}

void iohw__repeat_merge_warnings(const char **dst, const char *src)
{
    while (*src != '\0') {
        const char *end = strstr(src, "; ");
        size_t len = end != NULL ? (size_t)(end - src) : strlen(src);
        const char *part = iohw_text_keep_n(src, len);
        if (part[0] != '\0' && strstr(*dst, part) == NULL)
            iohw__warn_add(dst, part);
        src += len;
        if (*src != '\0')
            src += 2;
    }
}

void iohw__repeat_reference(iohw__repeat *rp, const iohw_problem *p,
                            const void *x, const void *w, const void *bias)
{
    if (!rp->ref || rp->rn >= rp->want)
        return;
    if (!iohw__run_call_of(p)->reference) {  /* the float oracle has no such case */
        rp->ref = 0;
        return;
    }
    size_t len = (size_t)iohw_problem_y_count(p) * iohw_dtype_size(p->dtype);
    if (len > rp->len)
        len = rp->len;
    iohw_oracle_result o;
    memset(&o, 0, sizeof o);
    int64_t t0 = iohw_clock_ns();
    int rc = iohw_oracle_run(p, x, w, p->has_bias ? bias : NULL, 1, &o, NULL);
    if (rc == 0)
        memcpy(rp->ry, o.y, len);
    iohw_oracle_result_free(&o);
    rp->rt[rp->rn++] = (double)(iohw_clock_ns() - t0) * 1e-9;
    if (rc != 0)
        rp->ref = 0;
}

double iohw__repeat_reference_median(iohw__repeat *rp)
{
    if (!rp->ref || rp->rn < 1 || rp->rn != rp->n)
        return 0;
    return median(rp->rt, rp->rn);
}
