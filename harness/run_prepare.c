/*
 * harness/run_prepare.c - the parts of `iohw run` around the scheduler:
 * checking the options, the backend check in a child, --resume, --list,
 * and small helpers shared with the verifier (the repro command is in
 * results/result.c, the pipe helpers in sandbox/pipe.c, a child's exit in
 * sandbox/spawn.c).
 */
#include "harness/run_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/breaker.h"
#include "harness/filter.h"
#include "results/journal.h"
#include "sandbox/probe.h"
#include "sandbox/worker.h"

/* --- small helpers ------------------------------------------------------- */

int iohw__default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n > IOHW_JOBS_MAX ? IOHW_JOBS_MAX : (int)n;
}

/* A whole case may take CASE_CEILING_FACTOR backend-call limits plus
 * CASE_CEILING_SLACK_S seconds (reading the case file, comparing and
 * diagnosing are not backend calls) before its verifier is killed. */
#define CASE_CEILING_FACTOR 10
#define CASE_CEILING_SLACK_S 60

double iohw__case_ceiling(double timeout)
{
    return CASE_CEILING_FACTOR * timeout + CASE_CEILING_SLACK_S;
}

/* --- options and inputs -------------------------------------------------- */

/* Checks what --list needs too, and expands the inputs. */
static int expand(const iohw_run_options *o, iohw_listing *s, iohw_error *err)
{
    memset(s, 0, sizeof *s);
    if (o == NULL)
        return iohw_error_set(err, "no options");
    if (o->inputs == NULL || o->ninputs < 1)
        return iohw_error_set(err, "no suite directory or case file given");
    int si = o->shard_index, sn = o->shard_count;
    if (si == 0 && sn == 0)
        si = sn = 1;
    if (sn < 1 || si < 1 || si > sn)
        return iohw_error_set(err, "shard %d/%d: expected I/N with "
                              "1 <= I <= N", si, sn);
    iohw_filter *f = NULL;
    if (o->filter != NULL && o->filter[0] != '\0') {
        f = iohw_filter_parse(o->filter, err);
        if (f == NULL)
            return iohw_error_prefix(err, "--filter '%s'", o->filter);
    }
    int rc = iohw_listing_build(o->inputs, o->ninputs, f, si, sn, s, err);
    iohw_filter_free(f);
    return rc;
}

/* Loads the backend in a child process (sandbox/probe.h) and learns its
 * name and version; its errors are the loader's. */
static int probe(const char *backend, iohw_run_results *out, iohw_error *err)
{
    iohw_probe pr;
    if (iohw_probe_start(backend, &pr, err) != 0)
        return -1;
    /* The probe's strings pass to the results (freed with them). */
    free(out->backend_name);
    free(out->backend_version);
    out->backend_name = pr.name;
    out->backend_version = pr.version;
    pr.name = pr.version = NULL;
    iohw_probe_stop(&pr);
    return 0;
}

int iohw__run_prepare(const iohw_run_options *o, iohw_listing *s,
                      iohw_run_results *out, iohw_error *err)
{
    memset(s, 0, sizeof *s);
    if (o == NULL)
        return iohw_error_set(err, "no options");
    if (o->backend == NULL || o->backend[0] == '\0')
        return iohw_error_set(err, "no backend given (--backend LIB.so)");
    if (o->jobs < 0)
        return iohw_error_set(err, "jobs %d: expected 0 (one per core) or "
                              "more", o->jobs);
    if (!(o->timeout >= 0) || isinf(o->timeout))
        return iohw_error_set(err, "timeout %g: expected a finite number of "
                              "seconds >= 0", o->timeout);
    if (o->breaker < 0)
        return iohw_error_set(err, "breaker %d: expected 0 (off) or more",
                              o->breaker);
    if (o->memory_limit_mb < 0)
        return iohw_error_set(err, "memory limit %lld MB: expected >= 0",
                              (long long)o->memory_limit_mb);
    if (o->repeat < 0 || o->repeat > IOHW_RUN_REPEAT_MAX)
        return iohw_error_set(err, "repeat %d: expected 1 to %d (or 0: no "
                              "timing)", o->repeat, IOHW_RUN_REPEAT_MAX);
    if (o->resume && (o->journal == NULL || o->journal[0] == '\0'))
        return iohw_error_set(err, "--resume needs --journal FILE");
    if (o->rounding < 0 || o->rounding > IOHW_ROUND_GEMMLOWP)
        return iohw_error_set(err, "rounding %d: expected 0 (none) or a "
                              "rounding mode (IOHW_ROUND_*)", (int)o->rounding);

    /* Load the backend once (in a child) so that a bad one stops the run
     * at once. */
    if (probe(o->backend, out, err) != 0)
        return -1;

    if (expand(o, s, err) != 0) {
        iohw_run_results_free(out);   /* the backend's name and version */
        return -1;
    }
    size_t n = (size_t)(s->count > 0 ? s->count : 1);
    out->items = calloc(n, sizeof *out->items);
    out->wall = calloc(n, sizeof *out->wall);
    if (out->items == NULL || out->wall == NULL) {
        iohw_run_results_free(out);
        iohw_listing_free(s);
        return iohw_error_set(err, "out of memory for %lld results",
                              (long long)s->count);
    }
    out->count = s->count;
    out->allow_empty = o->allow_empty;
    out->all_tags = o->all_tags;
    out->quiet = o->quiet;
    return 0;
}

/* --- resume -------------------------------------------------------------- */

typedef struct keyed {
    const iohw_result *r;
    int64_t line;
} keyed;

static int key_cmp(const char *file, const char *id, const iohw_result *r)
{
    int c = strcmp(file, r->file);
    return c != 0 ? c : strcmp(id, r->case_id);
}

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = key_cmp(x->r->file, x->r->case_id, y->r);
    if (c != 0)
        return c;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* The last journal line for (file, id), or NULL. */
static const iohw_result *lookup(const keyed *v, int64_t n, const char *file,
                                 const char *id)
{
    int64_t lo = 0, hi = n;   /* first element > key */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (key_cmp(file, id, v[mid].r) >= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || key_cmp(file, id, v[lo - 1].r) != 0)
        return NULL;
    return v[lo - 1].r;
}

int iohw__run_known(const iohw_run_options *o, const iohw_listing *s,
                    iohw_run_results *out, unsigned char **known,
                    iohw_error *err)
{
    *known = calloc((size_t)(s->count > 0 ? s->count : 1), 1);
    if (*known == NULL)
        return iohw_error_set(err, "out of memory");
    if (!o->resume)
        return 0;

    iohw_result *items = NULL;
    int64_t count = 0;
    if (iohw_journal_read(o->journal, &items, &count, stderr, NULL, err) != 0)
        return -1;
    keyed *v = malloc((size_t)(count > 0 ? count : 1) * sizeof *v);
    if (v == NULL) {
        free(items);
        return iohw_error_set(err, "out of memory reading the journal");
    }
    for (int64_t i = 0; i < count; i++) {
        v[i].r = &items[i];
        v[i].line = i;
    }
    qsort(v, (size_t)count, sizeof *v, cmp_keyed);
    for (int64_t i = 0; i < s->count; i++) {
        const iohw_listing_entry *e = &s->entries[i];
        const iohw_result *r = lookup(v, count, s->files[e->file], e->id);
        if (r == NULL || iohw_breaker_left_out(r))
            continue;
        out->items[i] = *r;
        (*known)[i] = 1;
        out->resumed++;
    }
    free(v);
    free(items);
    return 0;
}

/* --- --list -------------------------------------------------------------- */

int64_t iohw_run_list(const iohw_run_options *o, FILE *out, iohw_error *err)
{
    iohw_listing s;
    if (expand(o, &s, err) != 0)
        return -1;
    for (int64_t i = 0; i < s.count; i++) {
        const iohw_listing_entry *e = &s.entries[i];
        if (e->invalid != NULL)
            fprintf(out, "%s\tINVALID: %s\n",
                    e->id[0] ? e->id : s.files[e->file], e->invalid);
        else
            fprintf(out, "%s\t%s\n", e->id, e->descriptor);
    }
    int64_t n = s.count;
    iohw_listing_free(&s);
    return n;
}
