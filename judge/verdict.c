/*
 * judge/verdict.c - failing cases grouped by diagnosis (see verdict.h).
 */
#include "judge/verdict.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/diagnose.h"
#include "oracle/problem.h"
#include "oracle/descriptor.h"

/* The longest message part a label keeps. */
#define KEY_MESSAGE_MAX 160
/* The most diagnoses read from one diagnosis sentence. */
#define VERDICT_MATCHES_MAX 64

static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* The end of a number at s (digits, a fraction, an exponent), or s. */
static const char *skip_number(const char *s)
{
    const char *e = s;
    if (!is_digit(*e))
        return s;
    while (is_digit(*e) || (*e == '.' && is_digit(e[1])))
        e++;
    if ((*e == 'e' || *e == 'E') && (is_digit(e[1]) ||
        ((e[1] == '-' || e[1] == '+') && is_digit(e[2]))))
        for (e += 2; is_digit(*e); e++) {}
    return e;
}

/* The end of a shape at s ("[1, 2, 3]", "(2, 3)", "2x3x4"), or s. */
static const char *skip_shape(const char *s)
{
    const char *e = s;
    if (*s == '[' || *s == '(') {
        const char close = *s == '[' ? ']' : ')';
        for (e = s + 1; is_digit(*e) || *e == ',' || *e == ' ' || *e == '-'; e++) {}
        return *e == close && e > s + 1 && is_digit(s[1]) ? e + 1 : s;
    }
    int parts = 0;
    while (is_digit(*e)) {
        e = skip_number(e);
        parts++;
        if (*e != 'x' || !is_digit(e[1]))
            break;
        e++;
    }
    return parts > 1 ? e : s;
}

/* The end of a quoted path at s ('/a/b' or "/a/b"), or s. */
static const char *skip_path(const char *s)
{
    if (*s != '\'' && *s != '"')
        return s;
    const char *e = strchr(s + 1, *s);
    return e != NULL && memchr(s + 1, '/', (size_t)(e - s - 1)) != NULL ? e + 1 : s;
}

void iohw_verdict_normalise(const char *msg, char *out, size_t n)
{
    size_t len = 0;
    for (const char *s = msg; *s != '\0' && len + 8 < n;) {
        const char *e;
        const char *put = NULL;
        if ((e = skip_path(s)) != s)
            put = "PATH";
        else if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2]))
            for (put = "ADDR", e = s + 2; isxdigit((unsigned char)*e); e++) {}
        else if ((e = skip_shape(s)) != s)
            put = "SHAPE";
        else if ((e = skip_number(s)) != s)
            put = "N";
        if (put != NULL) {
            len += (size_t)snprintf(out + len, n - len, "%s", put);
            s = e;
        } else {
            out[len++] = *s++;
        }
    }
    out[len < n ? len : n - 1] = '\0';
}

/* The label of a FAIL without a diagnosis, by what is known of it. */
static void fail_label(const iohw_result *r, char *label, size_t n)
{
    int finite = 0;
    for (int k = 0; k < r->npoints; k++)
        finite += isfinite(r->points[k].got);
    if (r->npoints > 0 && finite == 0)
        snprintf(label, n, "FAIL: the output overflows or is NaN (no diagnosis checkable)");
    else
        snprintf(label, n, "FAIL: no diagnosis (no misreading tried matches the output)");
}

static void cause_of(const iohw_result *r, int d, char *label, size_t n);

/* The label of r's group when it belongs to diagnosis d (or -1): a
 * backward case's cause behind its direction's kernel ("BWD_D: <cause>",
 * "BWD_W: <cause>" with or without db), so that groups are per kernel (specification section 13). */
static void label_of(const iohw_result *r, int d, char *label, size_t n)
{
    if (r->direction[0] == '\0' || n < sizeof r->direction + 2) {
        cause_of(r, d, label, n);
        return;
    }
    /* BWD_W and BWD_WB are one kernel: one group per cause. */
    const int wb = strcmp(r->direction, "BWD_WB") == 0;
    int at = snprintf(label, n, "%.7s: ", wb ? "BWD_W" : r->direction);
    cause_of(r, d, label + at, n - (size_t)at);
}

static void cause_of(const iohw_result *r, int d, char *label, size_t n)
{
    char msg[KEY_MESSAGE_MAX + 4];
    if (d >= 0) {
        snprintf(label, n, "%s", iohw_diagnose_name(d));
    } else if (r->status == IOHW_RESULT_FAIL) {
        fail_label(r, label, n);
    } else if (r->message[0] == '\0') {
        snprintf(label, n, "%s without a message", iohw_result_status_name(r->status));
    } else {
        iohw_verdict_normalise(r->message, msg, KEY_MESSAGE_MAX);
        snprintf(label, n, "%s: %s%s", iohw_result_status_name(r->status), msg,
                 strlen(msg) + 9 >= KEY_MESSAGE_MAX ? "..." : "");
    }
}

int iohw_verdict_key(const iohw_result *r, char *label, size_t n)
{
    int d = r->diagnosis[0] != '\0' ? iohw_diagnose_find(r->diagnosis) : -1;
    label_of(r, d, label, n);
    return d;
}

int iohw_verdict_matches(const char *diagnosis, int *found, int max)
{
    static const char lead[] = "matches the oracle with ";
    static const char weak[] = IOHW_DIAGNOSE_CONSISTENT;
    static const char more[] = ", or with ";
    const char *s = diagnosis;
    int n = 0;
    if (strncmp(s, lead, sizeof lead - 1) == 0)
        s += sizeof lead - 1;
    else if (strncmp(s, weak, sizeof weak - 1) == 0)
        s += sizeof weak - 1;
    for (int d; n < max && *s != '\0' && (d = iohw_diagnose_find(s)) >= 0;) {
        found[n++] = d;
        s += strlen(iohw_diagnose_name(d));
        if (strncmp(s, more, sizeof more - 1) != 0)
            break;
        s += sizeof more - 1;
    }
    return n;
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

/* Adds bad result i to the group of diagnosis d (or of its cause when d
 * is -1), making the group when it is new; -1 when memory runs out. */
static int add_result(iohw_verdict *v, int *cap, const iohw_result *r, int d,
                      int64_t i)
{
    char label[sizeof v->groups[0].label];
    label_of(r, d, label, sizeof label);
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

/* Counts, per diagnosis, the bad results of r that it explains (names
 * among their matches). */
static void count_explained(const iohw_run_results *r, int64_t *explains)
{
    int found[VERDICT_MATCHES_MAX];
    for (int64_t i = 0; i < r->count; i++) {
        if (!iohw_result_status_bad(r->items[i].status))
            continue;
        int n = iohw_verdict_matches(r->items[i].diagnosis, found, VERDICT_MATCHES_MAX);
        for (int k = 0; k < n; k++)
            explains[found[k]]++;
    }
}

/* Of the diagnoses matching res, the one explaining the most failures of
 * the run (ties: the table's order); -1 when none matches. */
static int best_match(const iohw_result *res, const int64_t *explains)
{
    int found[VERDICT_MATCHES_MAX], best = -1;
    int n = iohw_verdict_matches(res->diagnosis, found, VERDICT_MATCHES_MAX);
    for (int k = 0; k < n; k++)
        if (best < 0 || explains[found[k]] > explains[best] ||
            (explains[found[k]] == explains[best] && found[k] < best))
            best = found[k];
    return best;
}

int iohw_verdict_build(const iohw_run_results *r, iohw_verdict *v)
{
    int cap = 0;
    memset(v, 0, sizeof *v);
    int64_t *explains = calloc((size_t)iohw_diagnose_count(), sizeof *explains);
    if (explains == NULL)
        return -1;
    count_explained(r, explains);
    for (int64_t i = 0; i < r->count; i++) {
        if (!iohw_result_status_bad(r->items[i].status))
            continue;
        int d = best_match(&r->items[i], explains);
        if (add_result(v, &cap, &r->items[i], d, i) != 0) {
            free(explains);
            iohw_verdict_free(v);
            return -1;
        }
    }
    free(explains);
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
