/*
 * harness/run_prepare.c - the parts of `iohw run` around the scheduler:
 * checking the options, the backend check in a child, --resume, --list,
 * and small helpers shared with the verifier and the worker (the repro
 * command is in result.c, the pipe helpers in pipe.c).
 */
#include "harness/run_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/breaker.h"
#include "harness/channel.h"
#include "harness/filter.h"
#include "harness/journal.h"
#include "harness/loader.h"
#include "harness/worker.h"

/* --- small helpers ------------------------------------------------------- */

int iohw__default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n > IOHW_JOBS_MAX ? IOHW_JOBS_MAX : (int)n;
}

double iohw__case_ceiling(double timeout)
{
    return 10 * timeout + 60;
}

#ifdef IOHW_COVERAGE
void __gcov_dump(void);
#endif

void iohw__exit_child(int code)
{
#ifdef IOHW_COVERAGE
    __gcov_dump();
#endif
    _exit(code);
}

int iohw_run_memory_limit_works(void)
{
    return !iohw_worker_asan();
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

/* In the child: loads the backend and sends 1, name, version, or 0 and
 * the loader's message. */
static void probe_child(const char *backend, int fd)
{
    iohw_loaded_backend lb;
    iohw_error err = {{0}};
    iohw__msg m;
    memset(&m, 0, sizeof m);
    uint32_t ok = iohw_backend_load(backend, &lb, &err) == 0;
    iohw__msg_put(&m, &ok, sizeof ok);
    if (ok) {
        char name[128], version[128];
        snprintf(name, sizeof name, "%s", lb.table->name ? lb.table->name : "?");
        snprintf(version, sizeof version, "%s",
                 lb.table->version ? lb.table->version : "?");
        iohw__msg_put_str(&m, name);
        iohw__msg_put_str(&m, version);
    } else {
        iohw__msg_put_str(&m, err.msg);
    }
    int rc = iohw__msg_send(fd, &m, -1);
    if (ok)
        iohw_backend_unload(&lb);
    iohw__exit_child(rc == 0 ? 0 : 1);
}

/* Loads the backend in a child process and learns its name and version;
 * its errors are the loader's. */
static int probe(const char *backend, iohw_run_results *out, iohw_error *err)
{
    int fds[2];
    if (pipe(fds) != 0)
        return iohw_error_set(err, "cannot check backend '%s': pipe: %s",
                              backend, strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        /* What a backend prints when loaded stays out of the run's output. */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 1);
        close(fds[0]);
        probe_child(backend, fds[1]);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return iohw_error_set(err, "cannot check backend '%s': fork: %s",
                              backend, strerror(errno));
    }
    iohw__msg m;
    memset(&m, 0, sizeof m);
    int k = iohw__msg_recv(fds[0], &m, NULL);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    uint32_t ok = 0;
    char text[IOHW_ERROR_MAX];
    iohw__msg_get(&m, &ok, sizeof ok);
    iohw__msg_get_str(&m, ok ? out->backend_name : text,
                      ok ? sizeof out->backend_name : sizeof text);
    if (ok)
        iohw__msg_get_str(&m, out->backend_version,
                          sizeof out->backend_version);
    int bad = k != 1 || m.bad;
    iohw__msg_free(&m);
    if (bad) {
        char how[256];
        iohw_worker_death_message(status, NULL, how, (int)sizeof how);
        return iohw_error_set(err, "cannot load backend '%s': the process "
                              "loading it %s", backend, how);
    }
    return ok ? 0 : iohw_error_set(err, "%s", text);
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
    if (o->resume && (o->journal == NULL || o->journal[0] == '\0'))
        return iohw_error_set(err, "--resume needs --journal FILE");

    /* Load the backend once (in a child) so that a bad one stops the run
     * at once. */
    if (probe(o->backend, out, err) != 0)
        return -1;

    if (expand(o, s, err) != 0)
        return -1;
    size_t n = (size_t)(s->count > 0 ? s->count : 1);
    out->items = calloc(n, sizeof *out->items);
    out->wall = calloc(n, sizeof *out->wall);
    if (out->items == NULL || out->wall == NULL) {
        iohw_listing_free(s);
        return iohw_error_set(err, "out of memory for %lld results",
                              (long long)s->count);
    }
    out->count = s->count;
    out->allow_empty = o->allow_empty;
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
