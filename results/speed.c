/*
 * results/speed.c - the speed part of a performance run (see speed.h).
 */
#include "results/speed.h"

#include <stdlib.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/dtype.h"

static int timed(const iohw_result *x)
{
    return x->repeat > 0;
}

/* The class key of a result: rank * 256 + dtype, or -1 when its
 * descriptor does not parse. */
static int class_key(const iohw_result *x)
{
    iohw_desc d;
    if (iohw_desc_parse(x->descriptor, &d, NULL) != 0)
        return -1;
    return (int)d.p.rank * 256 + (int)d.p.dtype;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int64_t n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Fills c from the timed results whose key is key (every one when all). */
static void fill_class(iohw_speed_class *c, const iohw_run_results *r,
                       const int *keys, int key, int all, double *g,
                       double *q)
{
    for (int64_t i = 0; i < r->count; i++) {
        const iohw_result *x = &r->items[i];
        if (!timed(x) || (!all && keys[i] != key))
            continue;
        g[c->cases++] = x->gmacs;
        c->total_ms += x->time_ms;
        if (x->ratio > 0)
            q[c->with_ratio++] = x->ratio;
    }
    c->gmacs = median(g, c->cases);
    c->ratio = median(q, c->with_ratio);
}

static void name_class(iohw_speed_class *c, int key)
{
    if (key < 0)
        snprintf(c->name, sizeof c->name, "unknown");
    else
        snprintf(c->name, sizeof c->name, "rank %d, %s", key / 256,
                 iohw_dtype_name((iohw_dtype)(key % 256)));
}

/* The distinct keys of the timed results, sorted, into *out. */
static int distinct_keys(const iohw_run_results *r, const int *keys,
                         int **out)
{
    int n = 0;
    int *v = malloc((size_t)(r->count > 0 ? r->count : 1) * sizeof *v);
    if (v == NULL)
        return -1;
    for (int64_t i = 0; i < r->count; i++)
        if (timed(&r->items[i]))
            v[n++] = keys[i];
    qsort(v, (size_t)n, sizeof *v, cmp_int);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    *out = v;
    return k;
}

static void find_slowest(iohw_speed *s, const iohw_run_results *r)
{
    for (int64_t i = 0; i < r->count; i++) {
        const iohw_result *x = &r->items[i];
        if (!timed(x))
            continue;
        if (x->repeat > s->repeat)
            s->repeat = x->repeat;
        int at = s->nslowest;
        while (at > 0 && r->items[s->slowest[at - 1]].time_ms < x->time_ms)
            at--;
        if (at >= IOHW_SPEED_SLOWEST)
            continue;
        int last = s->nslowest < IOHW_SPEED_SLOWEST ? s->nslowest
                                                     : IOHW_SPEED_SLOWEST - 1;
        memmove(&s->slowest[at + 1], &s->slowest[at],
                (size_t)(last - at) * sizeof s->slowest[0]);
        s->slowest[at] = i;
        if (s->nslowest < IOHW_SPEED_SLOWEST)
            s->nslowest++;
    }
}

int iohw_speed_build(const iohw_run_results *r, iohw_speed *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->all.name, sizeof s->all.name, "all");
    size_t n = (size_t)(r->count > 0 ? r->count : 1);
    int *keys = malloc(n * sizeof *keys), *distinct = NULL;
    double *g = malloc(n * sizeof *g), *q = malloc(n * sizeof *q);
    int rc = -1;
    if (keys == NULL || g == NULL || q == NULL)
        goto done;
    for (int64_t i = 0; i < r->count; i++)
        keys[i] = timed(&r->items[i]) ? class_key(&r->items[i]) : -1;
    int k = distinct_keys(r, keys, &distinct);
    if (k < 0 || (s->classes = calloc((size_t)(k > 0 ? k : 1),
                                      sizeof *s->classes)) == NULL)
        goto done;
    s->nclasses = k;
    for (int c = 0; c < k; c++) {
        name_class(&s->classes[c], distinct[c]);
        fill_class(&s->classes[c], r, keys, distinct[c], 0, g, q);
    }
    fill_class(&s->all, r, keys, 0, 1, g, q);
    find_slowest(s, r);
    rc = 0;
done:
    free(keys);
    free(distinct);
    free(g);
    free(q);
    if (rc != 0)
        iohw_speed_free(s);
    return rc;
}

void iohw_speed_free(iohw_speed *s)
{
    free(s->classes);
    memset(s, 0, sizeof *s);
}

/* A ratio, or "-" when there is none. */
static void ratio_text(double ratio, char *buf, size_t n)
{
    if (ratio > 0)
        snprintf(buf, n, "%.3g", ratio);
    else
        snprintf(buf, n, "-");
}

static void print_row(const iohw_speed_class *c, FILE *out)
{
    char ratio[32];
    ratio_text(c->ratio, ratio, sizeof ratio);
    fprintf(out, "%-24s %8lld %12.3f %10.3g %10s\n", c->name,
            (long long)c->cases, c->total_ms, c->gmacs, ratio);
}

void iohw_speed_print(const iohw_speed *s, const iohw_run_results *r,
                      FILE *out)
{
    if (s->all.cases == 0)
        return;
    fprintf(out, "\nspeed: run() called %d time(s) per case, its median "
            "time; ratio: the reference's time over the backend's (above 1: "
            "faster)\n%-24s %8s %12s %10s %10s\n", s->repeat, "class",
            "cases", "total ms", "GMAC/s", "ratio");
    for (int c = 0; c < s->nclasses; c++)
        print_row(&s->classes[c], out);
    print_row(&s->all, out);
    fprintf(out, "slowest:\n");
    for (int k = 0; k < s->nslowest; k++) {
        const iohw_result *x = &r->items[s->slowest[k]];
        char ratio[32];
        ratio_text(x->ratio, ratio, sizeof ratio);
        fprintf(out, "  %-40s %10.3f ms %10.3g GMAC/s  ratio %s\n",
                x->case_id, x->time_ms, x->gmacs, ratio);
    }
}
