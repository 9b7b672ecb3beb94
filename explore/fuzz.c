/*
 * explore/fuzz.c - `iohw fuzz`: the loop (see fuzz.h).
 *
 * Batches of IOHW_FUZZ_BATCH drawn cases are written to DIR/.fuzz-batch.h5
 * and run through iohw_run; each failure's class is its status and
 * diagnosis; the first failure of a class is shrunk at once (the batch file
 * still holds it).  Limits are checked between batches and shrinks; a
 * shrink under way finishes (its backend runs are bounded).  At the end the
 * minimal cases go to DIR/regressions.h5 (ids fuzz-001, ...) and a text
 * report to DIR/report.txt.
 */
#include "explore/fuzz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cases/atomic.h"
#include "harness/filter.h"
#include "results/result.h"
#include "harness/run.h"
#include "oracle/problem.h"
#include "oracle/clock.h"

#define FILTER_TRIES 1000

typedef struct fuzz {
    const iohw_fuzz_options *o;
    iohw_fuzz_report *out;
    iohw_filter *filter;
    iohw_fuzz_bounds bounds;     /* what the filter fixes of the draws */
    iohw_rng rng;
    char batch[4200];
    int64_t drawn;
    double t0;
    double run_s;                /* wall time of the batches run so far */
    int64_t run_cases;           /* their cases */
} fuzz;

void iohw_fuzz_options_init(iohw_fuzz_options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->time_s = IOHW_FUZZ_TIME_S;
    o->max_failures = IOHW_FUZZ_MAX_FAILURES;
}

/* 1 when --time has run out. */
static int time_up(const fuzz *z)
{
    return z->o->time_s > 0 && iohw_clock_s() - z->t0 >= z->o->time_s;
}

/* Why to stop, or NULL to go on. */
static const char *limit_reached(const fuzz *z)
{
    const iohw_fuzz_options *o = z->o;
    if (time_up(z))
        return "time";
    if (o->max_cases > 0 && z->out->cases >= o->max_cases)
        return "cases";
    if (o->max_failures > 0 && z->out->nclasses >= o->max_failures)
        return "failures";
    return NULL;
}

/* 1 when the drawn problem passes the filter (attributes only). */
static int selected(const fuzz *z, const iohw_desc *d)
{
    char tags[1024];
    iohw_case c;
    if (z->filter == NULL)
        return 1;
    memset(&c, 0, sizeof c);
    c.p = d->p;
    memcpy(c.fill, d->fill, sizeof c.fill);
    c.seed = d->seed;
    snprintf(c.id, sizeof c.id, "fuzz.%06lld", (long long)z->drawn);
    if (iohw_problem_tags(&d->p, d->fill, tags, sizeof tags) < 0)
        return 0;
    c.tags = tags;
    c.descriptor = (char *)"";
    return iohw_filter_match(z->filter, &c);
}

/* The message when no drawn problem passes the filter: the conditions
 * whose removal lets draws through are named (each tried alone). */
static int unsatisfiable(const fuzz *z, iohw_error *err)
{
    char named[1024] = "";
    const char *expr = z->o->filter;
    for (const char *s = expr; *s != '\0';) {
        size_t len = strcspn(s, ",");
        char rest[4096];
        snprintf(rest, sizeof rest, "%.*s%s", (int)(s - expr), expr,
                 s[len] == ',' ? s + len + 1 : "");
        size_t n = strlen(rest);
        if (n > 0 && rest[n - 1] == ',')
            rest[n - 1] = '\0';
        iohw_fuzz_bounds b;
        iohw_filter *f = NULL;
        int through = 0;
        if (iohw_fuzz_bounds_parse(rest[0] ? rest : NULL, &b, NULL) == 0
            && (rest[0] == '\0' || (f = iohw_filter_parse(rest, NULL)) != NULL)) {
            fuzz probe = *z;
            probe.filter = f;
            iohw_rng_seed(&probe.rng, z->o->seed);
            for (int i = 0; i < 200 && !through; i++) {
                iohw_desc d;
                if (iohw_fuzz_draw_within(&probe.rng, &b, &d) != 0)
                    break;
                through = selected(&probe, &d);
            }
        }
        iohw_filter_free(f);
        if (through) {
            size_t m = strlen(named);
            snprintf(named + m, sizeof named - m, "%s\"%.*s\"", m ? ", " : "",
                     (int)len, s);
        }
        s += len + (s[len] == ',');
    }
    return iohw_error_set(err, "the filter '%s' selects none of %d drawn "
                          "problems in a row: the fuzzer cannot draw what it "
                          "asks%s%s", expr, FILTER_TRIES,
                          named[0] ? "; without one of these conditions it can: " : "",
                          named);
}

/* Draws and writes up to n cases to the batch file; returns how many, or
 * -1 with the reason. */
static int write_batch(fuzz *z, int n, iohw_error *err)
{
    iohw_case_file *f = iohw_case_file_create(z->batch, err);
    if (f == NULL)
        return -1;
    for (int k = 0; k < n; k++) {
        iohw_desc d;
        iohw_case c;
        char id[32];
        int tries = 0, drew = 0;
        do {
            drew = iohw_fuzz_draw_within(&z->rng, &z->bounds, &d) == 0;
            z->drawn++;
        } while (drew && !selected(z, &d) && ++tries < FILTER_TRIES);
        if (!drew || tries == FILTER_TRIES) {
            iohw_case_file_abandon(f);
            return unsatisfiable(z, err);
        }
        snprintf(id, sizeof id, "fuzz.%06lld", (long long)z->drawn);
        if (iohw_make_case(&d, id, NULL, 1, &c, err) != 0) {
            iohw_case_file_abandon(f);
            return -1;
        }
        int rc = iohw_case_file_write(f, &c, err);
        iohw_case_free(&c);
        if (rc != 0) {
            iohw_case_file_abandon(f);
            return -1;
        }
    }
    return iohw_case_file_close(f, err) == 0 ? n : -1;
}

/* The name of a class: its first failure's status and diagnosis. */
static void class_key(const iohw_result *r, char *key, size_t n)
{
    snprintf(key, n, "%s%s%s", iohw_result_status_name(r->status),
             r->diagnosis[0] != '\0' ? ": " : "", r->diagnosis);
}

/* The run options of the fuzzer's batches and re-runs. */
static void run_options(const fuzz *z, iohw_run_options *ro)
{
    iohw_run_options_init(ro);
    ro->backend = z->o->backend;
    ro->jobs = z->o->jobs;
    ro->progress = IOHW_PROGRESS_NONE;
    ro->breaker = 0;
    if (z->o->timeout > 0)
        ro->timeout = z->o->timeout, ro->timeout_scaled = 0;
}

/* Runs case r again (the batch file still holds it); 1 when the second run
 * is not bad (r is flaky), 0 when it is bad again or cannot be run. */
static int flaky(const fuzz *z, const iohw_result *r)
{
    iohw_run_options ro;
    iohw_run_results res;
    iohw_error err = {{0}};
    const char *filter = iohw_text_fmt("id=%s", r->case_id);
    const char *inputs[1] = {r->file};
    run_options(z, &ro);
    ro.inputs = inputs;
    ro.ninputs = 1;
    ro.filter = filter;
    ro.jobs = 1;
    if (iohw_run(&ro, &res, &err) != 0)
        return 0;
    int again = res.count == 1 && !iohw_result_status_bad(res.items[0].status);
    if (again) {
        iohw_fuzz_report *out = z->out;
        if (out->flaky < IOHW_FUZZ_FLAKY_MAX) {
            out->flaky_cases[out->flaky].first = *r;
            out->flaky_cases[out->flaky].again = res.items[0].status;
        }
        out->flaky++;
        if (z->o->progress != NULL)
            fprintf(z->o->progress, "fuzz: flaky %s on %s: %s when run again "
                    "(not shrunk)\n      %s\n", iohw_result_status_name(r->status),
                    r->case_id, iohw_result_status_name(res.items[0].status),
                    r->descriptor);
    }
    iohw_run_results_free(&res);
    return again;
}

/* Counts a bad result in its class; shrinks the first of a class (a shrink
 * that fails leaves the class without a minimal case, noted).  A TIMEOUT
 * or CRASH is run again first: when it is flaky it starts no class. */
static void add_failure(fuzz *z, const iohw_result *r)
{
    iohw_fuzz_report *out = z->out;
    char key[sizeof out->classes[0].key];
    class_key(r, key, sizeof key);
    for (int i = 0; i < out->nclasses; i++) {
        if (iohw_shrink_related(&out->classes[i].shrunk.original, r)) {
            out->classes[i].count++;
            return;
        }
    }
    if (out->nclasses >= IOHW_FUZZ_CLASSES_MAX ||
        (z->o->max_failures > 0 && out->nclasses >= z->o->max_failures))
        return;
    if ((r->status == IOHW_RESULT_TIMEOUT || r->status == IOHW_RESULT_CRASH)
        && flaky(z, r))
        return;
    iohw_fuzz_class *c = &out->classes[out->nclasses++];
    memset(c, 0, sizeof *c);
    snprintf(c->key, sizeof c->key, "%s", key);
    c->count = 1;

    iohw_shrink_options so;
    iohw_shrink_options_init(&so);
    so.backend = z->o->backend;
    so.timeout = z->o->timeout;
    so.tmpdir = z->o->out_dir;
    if (z->o->time_s > 0)
        so.deadline = z->t0 + z->o->time_s;
    if (z->o->max_calls > 0)
        so.max_calls = z->o->max_calls;
    iohw_error err = {{0}};
    if (iohw_shrink_result_of(&so, r, &c->shrunk, &err) != 0) {
        if (z->o->progress != NULL)
            fprintf(z->o->progress, "fuzz: cannot shrink %s: %s\n", r->case_id,
                    err.msg);
        memset(&c->shrunk, 0, sizeof c->shrunk);
        c->shrunk.original = *r;
        return;
    }
    c->shrunk_ok = 1;
    snprintf(c->shrunk.minimal_case.id, sizeof c->shrunk.minimal_case.id,
             "fuzz-%03d", out->nclasses);
    if (z->o->progress != NULL)
        fprintf(z->o->progress, "fuzz: new failure %s\n      shrunk to %s "
                "(%d steps, %d backend runs%s)\n", key,
                c->shrunk.minimal_case.descriptor, c->shrunk.steps,
                c->shrunk.calls, time_up(z) ? "; stopped by the time limit" : "");
}

static void show_progress(const fuzz *z)
{
    const iohw_fuzz_report *out = z->out;
    FILE *f = z->o->progress;
    if (f == NULL)
        return;
    fprintf(f, "fuzz: %lld cases run (", (long long)out->cases);
    const char *sep = "";
    for (int s = 0; s < IOHW_RESULT_STATUS_COUNT; s++) {
        if (out->by_status[s] == 0)
            continue;
        fprintf(f, "%s%s %lld", sep, iohw_result_status_name((iohw_result_status)s),
                (long long)out->by_status[s]);
        sep = ", ";
    }
    fprintf(f, "), %d failure class%s", out->nclasses,
            out->nclasses == 1 ? "" : "es");
    if (out->flaky > 0)
        fprintf(f, ", %lld flaky", (long long)out->flaky);
    if (z->o->time_s > 0) {
        double left = z->o->time_s - (iohw_clock_s() - z->t0);
        fprintf(f, ", %.0f s left", left > 0 ? left : 0.0);
    }
    fputc('\n', f);
    fflush(f);
}

/* The cases of the next batch: IOHW_FUZZ_BATCH, fewer when --cases is
 * near or when the time left is below a full batch's time at the measured
 * seconds per case (at least one). */
static int batch_size(const fuzz *z)
{
    int n = IOHW_FUZZ_BATCH;
    if (z->o->max_cases > 0 && z->o->max_cases - z->out->cases < n)
        n = (int)(z->o->max_cases - z->out->cases);
    if (z->o->time_s > 0 && z->run_cases > 0 && z->run_s > 0) {
        const double per_case = z->run_s / (double)z->run_cases;
        const double left = z->o->time_s - (iohw_clock_s() - z->t0);
        const double fit = left / per_case;
        if (fit < n)
            n = fit >= 1 ? (int)fit : 1;
    }
    return n;
}

/* One batch: draw, run, classify. */
static int one_batch(fuzz *z, iohw_error *err)
{
    int n = batch_size(z);
    if (write_batch(z, n, err) < 0)
        return -1;
    iohw_run_options ro;
    iohw_run_results res;
    const char *inputs[1] = {z->batch};
    run_options(z, &ro);
    ro.inputs = inputs;
    ro.ninputs = 1;
    const double t = iohw_clock_s();
    if (iohw_run(&ro, &res, err) != 0)
        return -1;
    z->run_s += iohw_clock_s() - t;
    z->run_cases += res.count;
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        z->out->cases++;
        z->out->by_status[r->status]++;
        if (iohw_result_status_bad(r->status) && r->status != IOHW_RESULT_INVALID)
            add_failure(z, r);
    }
    iohw_run_results_free(&res);
    show_progress(z);
    return 0;
}

/* --- the outputs --------------------------------------------------------- */

static int write_regressions(const fuzz *z, iohw_error *err)
{
    iohw_fuzz_report *out = z->out;
    const iohw_case *cases[IOHW_FUZZ_CLASSES_MAX];
    int n = 0;
    for (int i = 0; i < out->nclasses; i++)
        if (out->classes[i].shrunk_ok)
            cases[n++] = &out->classes[i].shrunk.minimal_case;
    if (n == 0)
        return 0;
    snprintf(out->regressions, sizeof out->regressions, "%s/regressions.h5",
             z->o->out_dir);
    return iohw_shrink_write(out->regressions, cases, n, err);
}

static void report_class(const fuzz *z, int i, FILE *f)
{
    const iohw_fuzz_class *c = &z->out->classes[i];
    char repro[8192];
    fprintf(f, "\n%d. %s (%lld case%s)\n", i + 1, c->key, (long long)c->count,
            c->count == 1 ? "" : "s");
    fprintf(f, "   first:   %s\n", c->shrunk.original.descriptor);
    if (!c->shrunk_ok) {
        fprintf(f, "   (not shrunk)\n");
        return;
    }
    fprintf(f, "   minimal: %s\n", c->shrunk.minimal_case.descriptor);
    fprintf(f, "   case %s in %s (%d steps, %d backend runs)\n",
            c->shrunk.minimal_case.id, z->out->regressions, c->shrunk.steps,
            c->shrunk.calls);
    iohw_result where = c->shrunk.minimal;
    where.file = iohw_text_keep(z->out->regressions);
    where.case_id = iohw_text_keep(c->shrunk.minimal_case.id);
    if (iohw_repro_command(z->o->backend, &where, repro, (int)sizeof repro) > 0)
        fprintf(f, "   __REPRO: %s\n", repro);
}

/* The flaky cases: not failures, listed so that they can be looked at. */
static void report_flaky(const fuzz *z, FILE *f)
{
    const iohw_fuzz_report *out = z->out;
    if (out->flaky == 0)
        return;
    fprintf(f, "\nflaky (a TIMEOUT or CRASH that did not happen when run "
            "again; not shrunk, not a failure class): %lld\n",
            (long long)out->flaky);
    for (int64_t i = 0; i < out->flaky && i < IOHW_FUZZ_FLAKY_MAX; i++) {
        const iohw_fuzz_flaky *k = &out->flaky_cases[i];
        fprintf(f, "  %s then %s: %s\n", iohw_result_status_name(k->first.status),
                iohw_result_status_name(k->again), k->first.descriptor);
    }
}

static int write_report(const fuzz *z, iohw_error *err)
{
    iohw_fuzz_report *out = z->out;
    char tmp[4300];
    snprintf(out->report, sizeof out->report, "%s/report.txt", z->o->out_dir);
    FILE *f = iohw_atomic_fopen(out->report, tmp, sizeof tmp, err);
    if (f == NULL)
        return -1;
    fprintf(f, "iohw fuzz\nbackend: %s\nseed: %llu\nfilter: %s\n", z->o->backend,
            (unsigned long long)z->o->seed, z->o->filter ? z->o->filter : "(none)");
    fprintf(f, "cases run: %lld in %.1f s, stopped by the %s limit\n",
            (long long)out->cases, out->seconds, out->stopped_by);
    for (int s = 0; s < IOHW_RESULT_STATUS_COUNT; s++)
        if (out->by_status[s] > 0)
            fprintf(f, "  %-11s %lld\n", iohw_result_status_name((iohw_result_status)s),
                    (long long)out->by_status[s]);
    fprintf(f, "failure classes: %d\n", out->nclasses);
    for (int i = 0; i < out->nclasses; i++)
        report_class(z, i, f);
    report_flaky(z, f);
    return iohw_atomic_fclose(f, 1, tmp, out->report, err);
}

int iohw_fuzz(const iohw_fuzz_options *o, iohw_fuzz_report *out,
              iohw_error *err)
{
    fuzz z;
    memset(out, 0, sizeof *out);
    memset(&z, 0, sizeof z);
    z.o = o, z.out = out;
    if (o->backend == NULL || o->out_dir == NULL)
        return iohw_error_set(err, "a backend and an output folder are "
                              "needed");
    if (mkdir(o->out_dir, 0777) != 0 && errno != EEXIST)
        return iohw_error_set(err, "%s: %s", o->out_dir, strerror(errno));
    if (o->filter != NULL && (z.filter = iohw_filter_parse(o->filter, err)) == NULL)
        return -1;
    if (iohw_fuzz_bounds_parse(o->filter, &z.bounds, err) != 0) {
        iohw_filter_free(z.filter);
        return -1;
    }
    out->classes = calloc(IOHW_FUZZ_CLASSES_MAX, sizeof *out->classes);
    if (out->classes == NULL) {
        iohw_filter_free(z.filter);
        return iohw_error_set(err, "out of memory");
    }
    snprintf(z.batch, sizeof z.batch, "%s/.fuzz-batch.h5", o->out_dir);
    iohw_rng_seed(&z.rng, o->seed);
    z.t0 = iohw_clock_s();
    int rc = 0;
    while ((out->stopped_by = limit_reached(&z)) == NULL)
        if ((rc = one_batch(&z, err)) != 0)
            break;
    out->seconds = iohw_clock_s() - z.t0;
    unlink(z.batch);
    iohw_filter_free(z.filter);
    if (rc == 0 && (write_regressions(&z, err) != 0 || write_report(&z, err) != 0))
        rc = -1;
    if (rc != 0)
        iohw_fuzz_report_free(out);
    return rc;
}

void iohw_fuzz_report_free(iohw_fuzz_report *r)
{
    for (int i = 0; r->classes != NULL && i < r->nclasses; i++)
        iohw_shrink_result_free(&r->classes[i].shrunk);
    free(r->classes);
    r->classes = NULL;
    r->nclasses = 0;
}
