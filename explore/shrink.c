/*
 * explore/shrink.c - `iohw shrink`: the greedy search (see shrink.h).
 *
 * Each candidate is a complete case (generators/: the fill and seed of the
 * case, the oracle's outputs) written to a case file in a temporary folder
 * and run through iohw_run (harness/run.h) with one job: the backend runs
 * in its own worker, so a crash or a hang costs only that candidate.  A
 * candidate already tried (same descriptor and data) is not run again.
 */
#include "explore/shrink.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "generators/generators.h"
#include "harness/run.h"
#include "explore/shrink_internal.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "oracle/clock.h"

/* Positions tried for a one-hot tensor: the first, middle and last. */
#define HOT_TRIES 3

/* Where the search stands: the problem and data of the smallest failing
 * case found so far. */
typedef struct state {
    iohw_problem p;
    char fill[16];
    uint64_t seed;
    int64_t hot_x, hot_w;        /* one-hot element, or -1 */
} state;

typedef struct search {
    const iohw_shrink_options *o;
    char dir[PATH_MAX];          /* the temporary folder, "" when none */
    char path[PATH_MAX + 32];    /* the candidates' case file */
    char id[IOHW_CASE_ID_MAX];   /* the minimal case's id */
    int max_calls;
    char **seen;                 /* keys of the candidates tried */
    int nseen, capseen;
    iohw_shrink_result *out;
} search;

void iohw_shrink_options_init(iohw_shrink_options *o)
{
    memset(o, 0, sizeof *o);
    o->max_calls = IOHW_SHRINK_MAX_CALLS;
    o->memory_limit_mb = -1;
}

/* --- the same failure ------------------------------------------------------ */

/* The i-th item of a diagnosis ("matches the oracle with A, or with B"):
 * its start and length; 0 past the last. */
static int diag_item(const char *d, int i, const char **s, size_t *len)
{
    static const char head[] = "matches the oracle with ", sep[] = ", or with ";
    if (strncmp(d, head, sizeof head - 1) == 0)
        d += sizeof head - 1;
    for (int k = 0; *d != '\0'; k++) {
        const char *end = strstr(d, sep);
        size_t n = end != NULL ? (size_t)(end - d) : strlen(d);
        if (k == i) {
            *s = d, *len = n;
            return 1;
        }
        d += n;
        if (end != NULL)
            d += sizeof sep - 1;
    }
    return 0;
}

static int diag_has(const char *d, const char *item, size_t n)
{
    const char *s;
    size_t len;
    for (int i = 0; diag_item(d, i, &s, &len); i++)
        if (len == n && strncmp(s, item, n) == 0)
            return 1;
    return 0;
}

int iohw_shrink_same_failure(const iohw_result *original,
                             const iohw_result *candidate)
{
    const char *s;
    size_t n;
    if (candidate->status != original->status)
        return 0;
    for (int i = 0; diag_item(original->diagnosis, i, &s, &n); i++)
        if (!diag_has(candidate->diagnosis, s, n))
            return 0;
    for (int i = 0; diag_item(candidate->diagnosis, i, &s, &n); i++)
        if (!diag_has(original->diagnosis, s, n))
            return 0;
    return 1;
}

int iohw_shrink_related(const iohw_result *a, const iohw_result *b)
{
    const char *s;
    size_t n;
    if (a->status != b->status)
        return 0;
    if (a->diagnosis[0] == '\0' || b->diagnosis[0] == '\0')
        return a->diagnosis[0] == b->diagnosis[0];
    for (int i = 0; diag_item(a->diagnosis, i, &s, &n); i++)
        if (diag_has(b->diagnosis, s, n))
            return 1;
    return 0;
}

/* --- running one case ------------------------------------------------------- */

/* Runs the cases of file selected by filter (NULL: all) through iohw_run;
 * the one result goes to *r.  -1 on a harness error. */
static int run_file(const iohw_shrink_options *o, const char *file,
                    const char *filter, iohw_result *r, iohw_error *err)
{
    iohw_run_options ro;
    iohw_run_results res;
    const char *inputs[1] = {file};
    iohw_run_options_init(&ro);
    ro.backend = o->backend;
    ro.inputs = inputs;
    ro.ninputs = 1;
    ro.filter = filter;
    ro.jobs = 1;
    ro.progress = -1;
    ro.breaker = 0;
    ro.adapt_layout = o->adapt_layout;
    if (o->timeout > 0)
        ro.timeout = o->timeout, ro.timeout_scaled = 0;
    if (o->memory_limit_mb >= 0)
        ro.memory_limit_mb = o->memory_limit_mb;
    if (iohw_run(&ro, &res, err) != 0)
        return -1;
    int64_t count = res.count;
    if (count == 1)
        *r = res.items[0];
    iohw_run_results_free(&res);
    if (count != 1)
        return iohw_error_set(err, "shrink: running %s%s%s gave %lld results, "
                              "expected 1", file, filter ? " with filter " : "",
                              filter ? filter : "", (long long)count);
    return 0;
}

/* The t-th (0 or 1) data input of p's direction (specification section
 * 13): forward x then w, BWD_D dy then w, BWD_W x then dy; its buffer in c
 * (NULL when c is NULL) and element count. */
static void *data_input(iohw_case *c, const iohw_problem *p, int t,
                        int64_t *count)
{
    const int dy = (p->direction == IOHW_DIR_BWD_D && t == 0) ||
                   (p->direction == IOHW_DIR_BWD_W && t == 1);
    if (dy) {
        *count = iohw_problem_dy_count(p);
        return c != NULL ? c->dy : NULL;
    }
    *count = t == 0 ? iohw_problem_x_count(p) : iohw_problem_w_count(p);
    return c == NULL ? NULL : t == 0 ? c->x : c->w;
}

/* The case of a state: generated from its fill and seed, then the one-hot
 * tensors in place (fill "onehot"), outputs by the oracle. */
static int make_state_case(const search *s, const state *st, iohw_case *c,
                           iohw_error *err)
{
    iohw_desc d;
    memset(&d, 0, sizeof d);
    d.p = st->p;
    memcpy(d.fill, st->fill, sizeof d.fill);
    d.seed = st->seed;
    if (iohw_make_case(&d, s->id, NULL, 1, c, err) != 0)
        return -1;
    if (st->hot_x < 0 && st->hot_w < 0)
        return 0;
    const size_t es = iohw_dtype_size(c->p.dtype);
    for (int t = 0; t < 2; t++) {
        const int64_t hot = t == 0 ? st->hot_x : st->hot_w;
        int64_t count;
        void *v = data_input(c, &c->p, t, &count);
        if (hot >= 0 && v != NULL) {
            memset(v, 0, (size_t)count * es);
            iohw_dtype_store(c->p.dtype, v, (size_t)hot, 1.0);
        }
    }
    strcpy(c->fill, "onehot");
    free(c->descriptor);
    free(c->tags);
    c->descriptor = c->tags = NULL;
    if (iohw_complete_case(c, 1, err) != 0) {
        iohw_case_free(c);
        return -1;
    }
    return 0;
}

/* 1 when the key was tried before; else records it. */
static int seen_before(search *s, const char *key)
{
    for (int i = 0; i < s->nseen; i++)
        if (strcmp(s->seen[i], key) == 0)
            return 1;
    if (s->nseen == s->capseen) {
        int cap = s->capseen ? 2 * s->capseen : 64;
        char **m = realloc(s->seen, (size_t)cap * sizeof *m);
        if (m == NULL)
            return 0;
        s->seen = m, s->capseen = cap;
    }
    if ((s->seen[s->nseen] = strdup(key)) != NULL)
        s->nseen++;
    return 0;
}

/* Tries a candidate state: 1 when it fails the same way (it becomes the
 * minimal case), 0 when not (or it cannot be made, or was tried), 2 when
 * the budget is spent, -1 on a harness error. */
static int try_state(search *s, const state *st, const char *what,
                     iohw_error *err)
{
    iohw_case c;
    iohw_result r;
    char key[IOHW_DESC_MAX + 64];
    if (s->out->calls >= s->max_calls
        || (s->o->deadline > 0 && iohw_clock_s() >= s->o->deadline)) {
        s->out->budget_hit = 1;
        return 2;
    }
    if (make_state_case(s, st, &c, NULL) != 0)
        return 0;
    snprintf(key, sizeof key, "%s x%lld w%lld", c.descriptor,
             (long long)st->hot_x, (long long)st->hot_w);
    if (seen_before(s, key)) {
        iohw_case_free(&c);
        return 0;
    }
    iohw_case_file *f = iohw_case_file_create(s->path, err);
    if (f == NULL || iohw_case_file_write(f, &c, err) != 0 ||
        iohw_case_file_close(f, err) != 0) {
        if (f != NULL)
            iohw_case_file_abandon(f);
        iohw_case_free(&c);
        return -1;
    }
    s->out->calls++;
    if (run_file(s->o, s->path, NULL, &r, err) != 0) {
        iohw_case_free(&c);
        return -1;
    }
    if (!iohw_shrink_same_failure(&s->out->original, &r)) {
        iohw_case_free(&c);
        return 0;
    }
    s->out->steps++;
    iohw_case_free(&s->out->minimal_case);
    s->out->minimal_case = c;
    s->out->minimal = r;
    if (s->o->log != NULL) {
        fprintf(s->o->log, "step %d (call %d): %s: %s\n", s->out->steps,
                s->out->calls, what, c.descriptor);
        fflush(s->o->log);
    }
    return 1;
}

/* --- the search ------------------------------------------------------------- */

/* The structural reductions, round after round, until a whole round of
 * kinds keeps nothing.  A kind that kept a candidate is tried again. */
static int shrink_structure(search *s, state *st, iohw_error *err)
{
    const int nk = iohw__shrink_kind_count();
    int kind = 0, idle = 0;
    while (idle < nk) {
        int kept = 0;
        for (int j = 0; !kept; j++) {
            state cand = *st;
            char what[160];
            int c = iohw__shrink_candidate(&st->p, kind, j, &cand.p, what,
                                           sizeof what);
            if (c < 0)
                break;
            if (c == 0)
                continue;
            int t = try_state(s, &cand, what, err);
            if (t < 0 || t == 2)
                return t < 0 ? -1 : 0;
            if (t == 1)
                *st = cand, kept = 1;
        }
        if (kept) {
            idle = 0;
        } else {
            idle++;
            kind = (kind + 1) % nk;
        }
    }
    return 0;
}

/* The t-th data input's name (data_input). */
static const char *input_name(const iohw_problem *p, int t)
{
    if (p->direction == IOHW_DIR_BWD_D)
        return t == 0 ? "dy" : "w";
    if (p->direction == IOHW_DIR_BWD_W)
        return t == 0 ? "x" : "dy";
    return t == 0 ? "x" : "w";
}

/* Simpler data: a one-hot first input (x; dy for BWD_D), then (with it) a
 * one-hot second input (w; dy for BWD_W); specification section 13. */
static int shrink_data(search *s, state *st, iohw_error *err)
{
    for (int t = 0; t < 2; t++) {
        int64_t count;
        (void)data_input(NULL, &st->p, t, &count);
        const int64_t at[HOT_TRIES] = {0, count / 2, count - 1};
        for (int j = 0; j < HOT_TRIES; j++) {
            if (j > 0 && at[j] == at[j - 1])
                continue;
            state cand = *st;
            char what[64];
            *(t == 0 ? &cand.hot_x : &cand.hot_w) = at[j];
            snprintf(what, sizeof what, "%s one-hot at element %lld",
                     input_name(&st->p, t), (long long)at[j]);
            int r = try_state(s, &cand, what, err);
            if (r < 0)
                return -1;
            if (r == 2)
                return 0;
            if (r == 1) {
                *st = cand;
                break;
            }
        }
    }
    return 0;
}

/* Shrinks from the original result (set in s->out) and its case c. */
static int shrink_from(search *s, iohw_case *c, iohw_error *err)
{
    state st;
    const iohw_result *orig = &s->out->original;
    if (!iohw_result_status_bad(orig->status) ||
        orig->status == IOHW_RESULT_INVALID)
        return iohw_error_set(err, "case '%s' of %s is %s against %s: only a "
                              "FAIL, ERROR, CRASH or TIMEOUT can be shrunk",
                              orig->case_id, orig->file,
                              iohw_result_status_name(orig->status),
                              s->o->backend);
    memset(&st, 0, sizeof st);
    st.p = c->p;
    snprintf(st.fill, sizeof st.fill, "%s",
             iohw_fill_known(c->fill) ? c->fill : "normal");
    st.seed = c->seed;
    st.hot_x = st.hot_w = -1;
    snprintf(s->id, sizeof s->id, "%.*s-min", IOHW_CASE_ID_MAX - 5, c->id);
    memcpy(c->id, s->id, sizeof s->id);
    s->out->minimal_case = *c;       /* the original until a step is kept */
    memset(c, 0, sizeof *c);
    s->out->minimal = *orig;

    const char *tmp = s->o->tmpdir ? s->o->tmpdir : getenv("TMPDIR");
    snprintf(s->dir, sizeof s->dir, "%s/iohw-shrink-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(s->dir) == NULL) {
        s->dir[0] = '\0';
        return iohw_error_set(err, "shrink: cannot make a temporary folder "
                              "in %s", tmp ? tmp : "/tmp");
    }
    snprintf(s->path, sizeof s->path, "%s/candidate.h5", s->dir);
    if (shrink_structure(s, &st, err) != 0 || shrink_data(s, &st, err) != 0)
        return -1;
    return 0;
}

/* Reads the case, runs the search, cleans up. */
static int shrink_run(const iohw_shrink_options *o, const char *file,
                      const char *id, const iohw_result *given,
                      iohw_shrink_result *out, iohw_error *err)
{
    search s;
    iohw_case c;
    double t0 = iohw_clock_s();
    memset(out, 0, sizeof *out);
    memset(&s, 0, sizeof s);
    memset(&c, 0, sizeof c);
    s.o = o, s.out = out;
    s.max_calls = o->max_calls > 0 ? o->max_calls : IOHW_SHRINK_MAX_CALLS;
    if (o->backend == NULL)
        return iohw_error_set(err, "shrink: no backend given");

    iohw_case_file *f = iohw_case_file_open(file, err);
    if (f == NULL)
        return -1;
    int rc = iohw_case_file_read(f, id, IOHW_READ_ALL, &c, err);
    iohw_case_file_close(f, NULL);
    if (rc != 0)
        return -1;
    if (given != NULL) {
        out->original = *given;
    } else {
        char filter[IOHW_CASE_ID_MAX + 8];
        snprintf(filter, sizeof filter, "id=%s", id);
        out->calls = 1;
        rc = run_file(o, file, filter, &out->original, err);
    }
    if (rc == 0)
        rc = shrink_from(&s, &c, err);
    iohw_case_free(&c);
    if (s.dir[0] != '\0') {
        unlink(s.path);
        rmdir(s.dir);
    }
    for (int i = 0; i < s.nseen; i++)
        free(s.seen[i]);
    free(s.seen);
    out->seconds = iohw_clock_s() - t0;
    if (rc != 0)
        iohw_shrink_result_free(out);
    return rc;
}

int iohw_shrink_case(const iohw_shrink_options *o, const char *file,
                     const char *id, iohw_shrink_result *out, iohw_error *err)
{
    return shrink_run(o, file, id, NULL, out, err);
}

int iohw_shrink_result_of(const iohw_shrink_options *o, const iohw_result *r,
                          iohw_shrink_result *out, iohw_error *err)
{
    return shrink_run(o, r->file, r->case_id, r, out, err);
}

void iohw_shrink_result_free(iohw_shrink_result *r)
{
    iohw_case_free(&r->minimal_case);
}
