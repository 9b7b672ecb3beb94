/*
 * reports/merge_diff.c - combining reports read back from JSON: merging
 * shards (or re-runs) into one, and comparing an old run with a new one.
 */
#include "reports/reports_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- merge --------------------------------------------------------------- */

typedef struct ref {
    const iohw_result *r;
    double wall;
    int source;     /* report index */
    int64_t order;  /* index within the report */
} ref;

/* s, or "" for NULL (a string not set). */
static const char *or_empty(const char *s)
{
    return s != NULL ? s : "";
}

static int ref_cmp(const void *pa, const void *pb)
{
    const ref *a = pa, *b = pb;
    int c = strcmp(a->r->file, b->r->file);
    if (c == 0)
        c = strcmp(a->r->case_id, b->r->case_id);
    if (c == 0)
        c = a->source != b->source ? (a->source < b->source ? -1 : 1)
                                   : (a->order < b->order ? -1 : a->order > b->order);
    return c;
}

static const char *keep(iohw_report *rep, const char *s)
{
    return s != NULL ? iohw__report_own(rep, strdup(s)) : NULL;
}

static int same_text(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Run information: the first report's, with what differs between them
 * dropped, inputs united, times combined. */
static int merge_info(const iohw_report *const *in, int n, iohw_report *out)
{
    iohw_report_options *o = &out->options;
    const iohw_report_options *first = &in[0]->options;
    const iohw_run_results *r0 = &in[0]->results;
    if ((out->results.backend_name = strdup(r0->backend_name ? r0->backend_name : "")) == NULL ||
        (out->results.backend_version =
             strdup(r0->backend_version ? r0->backend_version : "")) == NULL)
        return -1;
    out->results.machine = in[0]->results.machine; /* the first report's */
    o->jobs = first->jobs;
    o->timeout = first->timeout;
    if (first->iohw_version != NULL && (o->iohw_version = keep(out, first->iohw_version)) == NULL)
        return -1;
    int same_filter = 1;
    int ninputs = 0;
    for (int i = 0; i < n; i++) {
        const iohw_report_options *x = &in[i]->options;
        same_filter &= same_text(x->filter, first->filter);
        if (o->backend_path == NULL && x->backend_path != NULL &&
            (o->backend_path = keep(out, x->backend_path)) == NULL)
            return -1;
        if (x->start_time != 0 && (o->start_time == 0 || x->start_time < o->start_time))
            o->start_time = x->start_time;
        out->results.seconds += in[i]->results.seconds;
        out->results.resumed += in[i]->results.resumed;
        ninputs += x->ninputs;
    }
    if (same_filter && first->filter != NULL && (o->filter = keep(out, first->filter)) == NULL)
        return -1;
    if (ninputs == 0)
        return 0;
    const char **inputs = iohw__report_own(out, calloc((size_t)ninputs, sizeof *inputs));
    if (inputs == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < in[i]->options.ninputs; k++) {
            const char *s = in[i]->options.inputs[k];
            int dup = 0;
            for (int j = 0; j < o->ninputs && !dup; j++)
                dup = strcmp(inputs[j], s) == 0;
            if (!dup && (inputs[o->ninputs++] = keep(out, s)) == NULL)
                return -1;
        }
    }
    o->inputs = inputs;
    return 0;
}

static int merge_baselines(const iohw_report *const *in, int n, iohw_report *out)
{
    iohw_baseline *b = &out->baseline;
    int total = 0, any = 0;
    for (int i = 0; i < n; i++) {
        total += in[i]->baseline.count;
        any |= in[i]->options.baseline != NULL;
    }
    if (!any)
        return 0;
    if (total > 0 && (b->entries = calloc((size_t)total, sizeof *b->entries)) == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        const iohw_baseline *x = &in[i]->baseline;
        if (b->path == NULL && x->path != NULL && (b->path = strdup(x->path)) == NULL)
            return -1;
        for (int k = 0; k < x->count; k++) {
            const iohw_baseline_entry *e = &x->entries[k];
            int j = 0;
            while (j < b->count && (strcmp(b->entries[j].pattern, e->pattern) != 0 ||
                                    strcmp(b->entries[j].reason, e->reason) != 0))
                j++;
            if (j == b->count) {
                if (iohw_baseline_entry_copy(&b->entries[j], e) != 0)
                    return -1;
                b->count++;
            } else
                b->entries[j].matched += e->matched;
        }
    }
    out->options.baseline = b;
    return 0;
}

int iohw_report_merge(const iohw_report *const *in, int n, iohw_report *out,
                      int64_t *replaced, iohw_error *err)
{
    memset(out, 0, sizeof *out);
    if (replaced != NULL)
        *replaced = 0;
    if (in == NULL || n < 1)
        return iohw_error_set(err, "merge: no reports");
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(or_empty(in[i]->results.backend_name),
                   or_empty(in[0]->results.backend_name)) != 0 ||
            strcmp(or_empty(in[i]->results.backend_version),
                   or_empty(in[0]->results.backend_version)) != 0)
            return iohw_error_set(err, "merge: report %d is of backend '%s' %s, report 1 "
                                  "of '%s' %s: only runs of one backend merge", i + 1,
                                  or_empty(in[i]->results.backend_name),
                                  or_empty(in[i]->results.backend_version),
                                  or_empty(in[0]->results.backend_name),
                                  or_empty(in[0]->results.backend_version));
        total += in[i]->results.count;
    }
    out->version = IOHW_REPORT_VERSION;
    ref *refs = total > 0 ? malloc((size_t)total * sizeof *refs) : NULL;
    if (total > 0 && refs == NULL)
        return iohw_error_set(err, "merge: out of memory");
    int64_t k = 0;
    for (int i = 0; i < n; i++)
        for (int64_t j = 0; j < in[i]->results.count; j++, k++) {
            refs[k].r = &in[i]->results.items[j];
            refs[k].wall = in[i]->results.wall != NULL ? in[i]->results.wall[j] : 0;
            refs[k].source = i;
            refs[k].order = j;
        }
    if (total > 0)
        qsort(refs, (size_t)total, sizeof *refs, ref_cmp);

    /* One result per (file, id): the last one read. */
    if (total > 0) {
        out->results.items = malloc((size_t)total * sizeof *out->results.items);
        out->results.wall = malloc((size_t)total * sizeof *out->results.wall);
        if (out->results.items == NULL || out->results.wall == NULL) {
            free(refs);
            iohw_report_free(out);
            return iohw_error_set(err, "merge: out of memory");
        }
    }
    for (int64_t i = 0; i < total; i++) {
        int last = i + 1 == total || strcmp(refs[i].r->file, refs[i + 1].r->file) != 0 ||
                   strcmp(refs[i].r->case_id, refs[i + 1].r->case_id) != 0;
        if (!last) {
            if (replaced != NULL)
                (*replaced)++;
            continue;
        }
        out->results.items[out->results.count] = *refs[i].r;
        out->results.wall[out->results.count] = refs[i].wall;
        out->results.count++;
    }
    free(refs);
    if (merge_info(in, n, out) != 0 || merge_baselines(in, n, out) != 0) {
        iohw_report_free(out);
        return iohw_error_set(err, "merge: out of memory");
    }
    return 0;
}

/* --- diff ---------------------------------------------------------------- */

typedef struct keyed {
    char key[640];
    const iohw_result *r;
} keyed;

static int keyed_cmp(const void *pa, const void *pb)
{
    return strcmp(((const keyed *)pa)->key, ((const keyed *)pb)->key);
}

/* Keys "FILE-NAME/ID" (no directory: runs on two machines keep their
 * suites in different places), sorted. */
static keyed *key_results(const iohw_report *rep)
{
    int64_t n = rep->results.count;
    keyed *k = malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
    if (k == NULL)
        return NULL;
    for (int64_t i = 0; i < n; i++) {
        const iohw_result *r = &rep->results.items[i];
        const char *base = strrchr(r->file, '/');
        snprintf(k[i].key, sizeof k[i].key, "%.500s/%s", base != NULL ? base + 1 : r->file,
                 r->case_id);
        k[i].r = r;
    }
    qsort(k, (size_t)n, sizeof *k, keyed_cmp);
    return k;
}

enum { D_NEW, D_FIXED, D_RATIO, D_CHANGED, D_GONE, D_KINDS };

static const char *const kind_title[D_KINDS] = {
    "New failures", "Fixed", "Worst error ratio changed", "Still failing, status changed",
    "Failing before, not run now"};

static int ratio_changed(const iohw_result *a, const iohw_result *b, double factor,
                         double floor)
{
    if (a->elements <= 0 || b->elements <= 0)
        return 0;
    int fa = isfinite(a->worst_ratio), fb = isfinite(b->worst_ratio);
    if (fa != fb)
        return 1;
    if (!fa)
        return 0;
    double x = a->worst_ratio > floor ? a->worst_ratio : floor;
    double y = b->worst_ratio > floor ? b->worst_ratio : floor;
    return x / y > factor || y / x > factor;
}

static void print_line(FILE *out, int kind, const iohw_result *o, const iohw_result *n)
{
    const iohw_result *r = n != NULL ? n : o;
    const char *id = r->case_id[0] != '\0' ? r->case_id : r->file;
    switch (kind) {
    case D_NEW:
        fprintf(out, "  %-9s %s  %s (%s)\n", iohw_result_status_name(n->status), id,
                n->message, o != NULL ? iohw_result_status_name(o->status) : "new case");
        break;
    case D_FIXED: /* a PASS with a note says so: not a plain fix */
        fprintf(out, "  %-9s %s  (was %s)%s%s\n", iohw_result_status_name(n->status), id,
                iohw_result_status_name(o->status), n->message[0] != '\0' ? "  " : "",
                n->message);
        break;
    case D_RATIO:
        fprintf(out, "  %s  %.3g -> %.3g  (%s)\n", id, o->worst_ratio, n->worst_ratio,
                iohw_result_status_name(n->status));
        break;
    case D_CHANGED:
        fprintf(out, "  %s  %s -> %s  %s\n", id, iohw_result_status_name(o->status),
                iohw_result_status_name(n->status), n->message);
        break;
    default:
        fprintf(out, "  %-9s %s\n", iohw_result_status_name(o->status), id);
    }
}

void iohw_report_diff(const iohw_report *old_rep, const iohw_report *new_rep,
                      double factor, double floor, FILE *out,
                      iohw_diff_counts *counts)
{
    memset(counts, 0, sizeof *counts);
    keyed *a = key_results(old_rep), *b = key_results(new_rep);
    int64_t na = old_rep->results.count, nb = new_rep->results.count;
    if (factor <= 1 || !isfinite(factor))
        factor = 2;
    if (!(floor >= 0) || !isfinite(floor))
        floor = 0;
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        if (out != NULL)
            fputs("iohw: report diff: out of memory\n", out);
        counts->new_failures = 1;  /* fail safe: not "all is well" */
        return;
    }
    /* Walk the two sorted lists; print section by section. */
    for (int pass = -1; pass < D_KINDS; pass++) {
        int64_t shown = 0, i = 0, j = 0;
        while (i < na || j < nb) {
            int c = i >= na ? 1 : j >= nb ? -1 : strcmp(a[i].key, b[j].key);
            const iohw_result *o = c <= 0 ? a[i].r : NULL;
            const iohw_result *n = c >= 0 ? b[j].r : NULL;
            i += c <= 0, j += c >= 0;
            int ob = o != NULL && iohw_result_status_bad(o->status);
            int nbad = n != NULL && iohw_result_status_bad(n->status);
            int kind = -1;
            if (n != NULL && nbad && !ob)
                kind = D_NEW;
            else if (o != NULL && n != NULL && ob && !nbad)
                kind = D_FIXED;
            else if (o != NULL && n != NULL && ob && nbad && o->status != n->status)
                kind = D_CHANGED;
            else if (o != NULL && n == NULL && ob)
                kind = D_GONE;
            if (pass < 0) {
                /* Counting pass. */
                counts->new_failures += kind == D_NEW;
                counts->fixed += kind == D_FIXED;
                counts->still_failing += ob && nbad;
                counts->added += o == NULL;
                counts->removed += n == NULL;
                counts->ratio_changed += o != NULL && n != NULL &&
                                         ratio_changed(o, n, factor, floor);
                continue;
            }
            if (pass == D_RATIO)
                kind = o != NULL && n != NULL && ratio_changed(o, n, factor, floor)
                           ? D_RATIO : -1;
            if (kind != pass || out == NULL)
                continue;
            if (shown++ == 0)
                fprintf(out, "%s:\n", kind_title[pass]);
            print_line(out, kind, o, n);
        }
        if (pass == D_RATIO && shown > 0 && out != NULL)
            fprintf(out, "  (ratios in u*err_bound; changes beyond x%g, below %g "
                         "counted as %g)\n", factor, floor, floor);
    }
    if (out != NULL)
        fprintf(out, "%lld new failures, %lld fixed, %lld still failing, %lld worst "
                     "ratios changed, %lld cases added, %lld removed\n",
                (long long)counts->new_failures, (long long)counts->fixed,
                (long long)counts->still_failing, (long long)counts->ratio_changed,
                (long long)counts->added, (long long)counts->removed);
    free(a);
    free(b);
}
