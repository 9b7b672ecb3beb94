/*
 * harness/worker_repeat.c - repeated run() calls and the reference's time
 * (see worker_repeat.h).
 */
#include "harness/worker_repeat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/loader.h"
#include "harness/worker.h"
#include "harness/worker_rude.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

void iohw__repeat_start(iohw__repeat *rp, int want, unsigned char *y,
                        size_t len)
{
    memset(rp, 0, sizeof *rp);
    rp->want = 1;
    rp->t = &rp->one;
    rp->y = y;
    rp->len = len;
    if (want <= 1 || y == NULL)
        return;
    rp->t = malloc((size_t)want * sizeof *rp->t);
    rp->before = malloc(len > 0 ? len : 1);
    if (rp->t == NULL || rp->before == NULL) {
        iohw__repeat_free(rp);
        rp->t = &rp->one;
        return;
    }
    memcpy(rp->before, y, len);
    rp->want = want;
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

int iohw__repeat_done(iohw__repeat *rp, int rc, char *warn, size_t n)
{
    if (rc != IOHW_OK) {
        char text[200];
        snprintf(text, sizeof text, "run() returned %s on repeated call %d of "
                 "%d (the first call's output is judged)",
                 iohw_backend_status_name(rc), rp->n + 1, rp->want);
        iohw__warn_append(warn, n, text);
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
                         char *warn, size_t n)
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
        iohw__warn_append(warn, n, text);
    }
}

void iohw__repeat_free(iohw__repeat *rp)
{
    if (rp->t != &rp->one)
        free(rp->t);
    free(rp->before);
    free(rp->first);
    rp->t = &rp->one;
    rp->before = rp->first = NULL;
}

void iohw__repeat_merge_warnings(char *dst, size_t n, const char *src)
{
    char part[1024];
    while (*src != '\0') {
        const char *end = strstr(src, "; ");
        size_t len = end != NULL ? (size_t)(end - src) : strlen(src);
        snprintf(part, sizeof part, "%.*s", (int)len, src);
        if (part[0] != '\0' && strstr(dst, part) == NULL)
            iohw__warn_append(dst, n, part);
        src += len;
        if (*src != '\0')
            src += 2;
    }
}

double iohw__repeat_reference(const iohw_problem *p, const void *x,
                              const void *w, const void *bias, size_t ylen,
                              int want)
{
    if (want < 1)
        want = 1;
    size_t len = (size_t)iohw_problem_y_count(p) * iohw_dtype_size(p->dtype);
    if (len > ylen)
        len = ylen;
    double *t = malloc((size_t)want * sizeof *t);
    unsigned char *y = malloc(len > 0 ? len : 1);
    int k = 0;
    for (; t != NULL && y != NULL && k < want; k++) {
        iohw_oracle_result o;
        memset(&o, 0, sizeof o);
        int64_t t0 = iohw_worker_now_ns();
        int rc = iohw_oracle_run(p, x, w, p->has_bias ? bias : NULL, 1, &o,
                                 NULL);
        if (rc == 0)
            memcpy(y, o.y, len);
        iohw_oracle_result_free(&o);
        t[k] = (double)(iohw_worker_now_ns() - t0) * 1e-9;
        if (rc != 0)
            break;
    }
    double s = t != NULL && y != NULL && k == want ? median(t, want) : 0;
    free(t);
    free(y);
    return s;
}
