/*
 * judge/verdict.c - failing cases grouped by diagnosis (see verdict.h).
 */
#include "judge/verdict.h"

#include <stdlib.h>
#include <string.h>

#include "judge/diagnose.h"
#include "oracle/problem.h"
#include "oracle/descriptor.h"

int iohw_verdict_key(const iohw_result *r, char *label, size_t n)
{
    int d = r->diagnosis[0] != '\0' ? iohw_diagnose_find(r->diagnosis) : -1;
    if (d >= 0)
        snprintf(label, n, "%s", iohw_diagnose_name(d));
    else if (r->tags[0] != '\0')
        snprintf(label, n, "%s with tags %s", iohw_result_status_name(r->status),
                 r->tags);
    else
        snprintf(label, n, "%s without tags", iohw_result_status_name(r->status));
    return d;
}

/* The multiply-adds of a result's problem, 0 when its descriptor does not
 * parse (a whole-file INVALID entry). */
static double result_macs(const iohw_result *r)
{
    iohw_desc d;
    iohw_error err;
    if (r->descriptor[0] == '\0' || iohw_desc_parse(r->descriptor, &d, &err) != 0)
        return 0;
    return iohw_problem_macs(&d.p);
}

static int cmp_group(const void *a, const void *b)
{
    const iohw_verdict_group *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

/* Adds bad result i to its group, making the group when it is new; -1 when
 * memory runs out. */
static int add_result(iohw_verdict *v, int *cap, const iohw_result *r, int64_t i)
{
    char label[sizeof v->groups[0].label];
    int d = iohw_verdict_key(r, label, sizeof label);
    double macs = result_macs(r);
    int k = 0;
    while (k < v->count && strcmp(v->groups[k].label, label) != 0)
        k++;
    if (k == v->count) {
        if (v->count == *cap) {
            int ncap = *cap ? 2 * *cap : 8;
            iohw_verdict_group *g = realloc(v->groups, (size_t)ncap * sizeof *g);
            if (g == NULL)
                return -1;
            v->groups = g;
            *cap = ncap;
        }
        iohw_verdict_group *g = &v->groups[v->count++];
        memset(g, 0, sizeof *g);
        g->diagnosis = d;
        g->status = r->status;
        memcpy(g->label, label, sizeof label);
        g->meaning = d >= 0 ? iohw_diagnose_meaning(d) : iohw_result_status_meaning(r->status);
        g->first = g->smallest = i;
        g->smallest_macs = macs;
    } else if (macs < v->groups[k].smallest_macs) {
        v->groups[k].smallest = i;
        v->groups[k].smallest_macs = macs;
    }
    v->groups[k].count++;
    v->failures++;
    return 0;
}

int iohw_verdict_build(const iohw_run_results *r, iohw_verdict *v)
{
    int cap = 0;
    memset(v, 0, sizeof *v);
    for (int64_t i = 0; i < r->count; i++) {
        if (!iohw_result_status_bad(r->items[i].status))
            continue;
        if (add_result(v, &cap, &r->items[i], i) != 0) {
            iohw_verdict_free(v);
            return -1;
        }
    }
    if (v->count > 1)
        qsort(v->groups, (size_t)v->count, sizeof *v->groups, cmp_group);
    return 0;
}

void iohw_verdict_free(iohw_verdict *v)
{
    free(v->groups);
    memset(v, 0, sizeof *v);
}

void iohw_verdict_headline(const iohw_verdict *v, char *buf, size_t n)
{
    if (v->failures == 0)
        snprintf(buf, n, "no failures");
    else if (v->count == 1 && v->groups[0].diagnosis >= 0)
        snprintf(buf, n, "all %lld failure%s match%s %s", (long long)v->failures,
                 v->failures == 1 ? "" : "s", v->failures == 1 ? "es" : "",
                 v->groups[0].label);
    else
        snprintf(buf, n, "%lld failure%s in %d group%s", (long long)v->failures,
                 v->failures == 1 ? "" : "s", v->count, v->count == 1 ? "" : "s");
}

void iohw_verdict_print(const iohw_verdict *v, const iohw_run_results *r,
                        const iohw_repro_options *o, FILE *out)
{
    char line[1024], repro[16384];
    iohw_verdict_headline(v, line, sizeof line);
    fprintf(out, "\nverdict: %s\n", line);
    for (int k = 0; k < v->count; k++) {
        const iohw_verdict_group *g = &v->groups[k];
        const iohw_result *s = &r->items[g->smallest];
        fprintf(out, "\n  %lld x %s\n    %s\n    smallest: %s (%s, %.0f multiply-adds)\n",
                (long long)g->count, g->label, g->meaning,
                s->case_id[0] ? s->case_id : s->file, s->descriptor, g->smallest_macs);
        if (iohw_repro_format(o, s, repro, (int)sizeof repro) >= 0)
            fprintf(out, "    __REPRO: %s\n", repro);
    }
}
