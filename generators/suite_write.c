/*
 * generators/suite_write.c - iohw_suite_write: making the planned cases and
 * writing them, one file per category, plus manifest.txt.
 *
 * Method: `threads` workers take case numbers in order and make each case
 * (fill, oracle) into a window of slots; the calling thread writes the
 * slots strictly in plan order, so the files are the same for any number
 * of threads.  A worker runs at most WINDOW_PER_THREAD * threads cases ahead
 * of the writer, which bounds the memory.  Only the calling thread touches
 * HDF5.  The first failure stops the workers; files already written stay.
 */
#include "generators/suite_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cases/atomic.h"
#include "generators/generators.h"
#include "oracle/clock.h"

#define WINDOW_PER_THREAD 4
#define PATH_MAX_LEN 4096
#define MAX_THREADS 256

typedef struct slot {
    int ready;
    int failed;
    iohw_case c;
    iohw_error e;
} slot;

typedef struct pool {
    const iohw_plan *plan;
    slot *slots;
    int64_t window;
    int64_t next;      /* next case to make */
    int64_t written;   /* cases taken by the writer */
    int stop;
    pthread_t tid[MAX_THREADS];
    int nthreads;      /* workers started */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} pool;

static void make_one(const iohw_plan *plan, int64_t i, slot *s)
{
    const iohw_plan_case *pc = &plan->cases[i];
    memset(s, 0, sizeof *s);
    if (iohw_make_case(&pc->desc, pc->id, pc->tags[0] != '\0' ? pc->tags : NULL, 1,
                       &s->c, &s->e) != 0)
        s->failed = 1;
}

static void *worker(void *arg)
{
    pool *pl = arg;
    pthread_mutex_lock(&pl->mu);
    for (;;) {
        if (pl->stop || pl->next >= pl->plan->count)
            break;
        if (pl->next >= pl->written + pl->window) {
            pthread_cond_wait(&pl->cv, &pl->mu);
            continue;
        }
        const int64_t i = pl->next++;
        pthread_mutex_unlock(&pl->mu);
        slot s;
        make_one(pl->plan, i, &s);
        pthread_mutex_lock(&pl->mu);
        pl->slots[i % pl->window] = s;
        pl->slots[i % pl->window].ready = 1;
        pthread_cond_broadcast(&pl->cv);
    }
    pthread_mutex_unlock(&pl->mu);
    return NULL;
}

/* Takes case i from the pool (waiting for it). */
static void take(pool *pl, int64_t i, slot *out)
{
    pthread_mutex_lock(&pl->mu);
    slot *s = &pl->slots[i % pl->window];
    while (!s->ready)
        pthread_cond_wait(&pl->cv, &pl->mu);
    *out = *s;
    memset(s, 0, sizeof *s);
    pl->written = i + 1;
    pthread_cond_broadcast(&pl->cv);
    pthread_mutex_unlock(&pl->mu);
}

static int64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

static int join_path(char *buf, size_t n, const char *dir, const char *name,
                     iohw_error *err)
{
    int len = snprintf(buf, n, "%s/%s", dir, name);
    if (len < 0 || (size_t)len >= n)
        return iohw_error_set(err, "suite: path %s/%s too long", dir, name);
    return 0;
}

static int write_manifest(const iohw_plan *plan, const char *dir,
                          iohw_suite_report *r, iohw_error *err)
{
    char path[PATH_MAX_LEN];
    if (join_path(path, sizeof path, dir, "manifest.txt", err) != 0)
        return -1;
    char tmp[PATH_MAX_LEN + 16];
    iohw_error e = {{0}};
    FILE *f = iohw_atomic_fopen(path, tmp, sizeof tmp, &e);
    if (f == NULL)
        return iohw_error_set(err, "cannot write %s", e.msg);
    int rc = iohw_plan_write_manifest(plan, f, err);
    if (iohw_atomic_fclose(f, rc == 0, tmp, path, &e) != 0)
        return rc != 0 ? iohw_error_prefix(err, "%s", path)
                       : iohw_error_set(err, "cannot write %s", e.msg);
    r->bytes += file_size(path);
    return 0;
}

/* mkdir -p: creates dir and any missing parents; 0, or -1 with errno. */
static int make_dirs(const char *dir)
{
    char buf[PATH_MAX_LEN];
    size_t n = strlen(dir);
    if (n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        buf[i] = c;
    }
    return 0;
}

/* Files of categories without cases would be stale: removes them. */
static void remove_stale_files(const iohw_plan *plan, const char *dir)
{
    char path[PATH_MAX_LEN];
    for (int k = 0; k < plan->nfiles; k++)
        if (plan->file_cases[k] == 0 && join_path(path, sizeof path, dir, plan->files[k],
                                                   NULL) == 0)
            unlink(path);
}

/* Starts up to `threads` workers (none when threads <= 1: the writer then
 * makes each case itself).  0, or -1 when the window cannot be allocated. */
static int pool_start(pool *pl, const iohw_plan *plan, int threads, iohw_error *err)
{
    memset(pl, 0, sizeof *pl);
    pl->plan = plan;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    pl->window = threads > 1 ? (int64_t)WINDOW_PER_THREAD * threads : 1;
    pl->slots = calloc((size_t)pl->window, sizeof *pl->slots);
    if (pl->slots == NULL)
        return iohw_error_set(err, "suite: out of memory");
    pthread_mutex_init(&pl->mu, NULL);
    pthread_cond_init(&pl->cv, NULL);
    for (int t = 0; threads > 1 && t < threads; t++) {
        if (pthread_create(&pl->tid[t], NULL, worker, pl) != 0)
            break;
        pl->nthreads++;
    }
    return 0;
}

/* Stops and joins the workers and frees every case not written. */
static void pool_stop(pool *pl)
{
    pthread_mutex_lock(&pl->mu);
    pl->stop = 1;
    pthread_cond_broadcast(&pl->cv);
    pthread_mutex_unlock(&pl->mu);
    for (int t = 0; t < pl->nthreads; t++)
        pthread_join(pl->tid[t], NULL);
    for (int64_t k = 0; k < pl->window; k++)
        iohw_case_free(&pl->slots[k].c);
    free(pl->slots);
    pthread_mutex_destroy(&pl->mu);
    pthread_cond_destroy(&pl->cv);
}

/* The case file being written: which category, its path, its handle. */
typedef struct writer {
    const iohw_plan *plan;
    const char *dir;
    FILE *log;
    iohw_suite_report *r;
    int file;                 /* category of f, -1 before the first */
    iohw_case_file *f;
    char path[PATH_MAX_LEN];
} writer;

/* Closes the current file and records its size.  0, or -1 on a write
 * error. */
static int writer_close(writer *w, iohw_error *err)
{
    if (w->f == NULL)
        return 0;
    int rc = iohw_case_file_close(w->f, err);
    w->f = NULL;
    if (rc != 0)
        return -1;
    const iohw_plan *plan = w->plan;
    w->r->file_bytes[w->file] = file_size(w->path);
    if (w->log != NULL)
        fprintf(w->log, "  %-16s %7lld cases %12lld bytes\n", plan->files[w->file],
                (long long)plan->file_cases[w->file], (long long)w->r->file_bytes[w->file]);
    return 0;
}

/* Writes case c into the file of its category, closing the previous file
 * and creating the next one when the category changes. */
static int writer_put(writer *w, int file, const iohw_case *c, iohw_error *err)
{
    if (file != w->file) {
        if (writer_close(w, err) != 0)
            return -1;
        w->file = file;
        if (join_path(w->path, sizeof w->path, w->dir, w->plan->files[file], err) != 0
            || (w->f = iohw_case_file_create(w->path, err)) == NULL)
            return -1;
    }
    return iohw_case_file_write(w->f, c, err);
}

/* Takes every case in plan order (from the workers, or made here when
 * there are none) and writes it. */
static int write_cases(pool *pl, writer *w, iohw_error *err)
{
    const iohw_plan *plan = pl->plan;
    for (int64_t i = 0; i < plan->count; i++) {
        slot s;
        if (pl->nthreads > 0)
            take(pl, i, &s);
        else
            make_one(plan, i, &s);
        if (s.failed) {
            if (err != NULL)
                *err = s.e;
            return -1;
        }
        int rc = writer_put(w, plan->cases[i].file, &s.c, err);
        iohw_case_free(&s.c);
        if (rc != 0)
            return -1;
        w->r->cases++;
    }
    return writer_close(w, err);
}

int iohw_suite_write(const iohw_plan *plan, const char *dir, int threads,
                     FILE *log, iohw_suite_report *report, iohw_error *err)
{
    iohw_suite_report r;
    pool pl;

    /* Test the arguments. */
    if (plan == NULL)
        return iohw_error_set(err, "suite: argument plan is NULL");
    if (dir == NULL || dir[0] == '\0')
        return iohw_error_set(err, "suite: argument dir is empty");
    memset(&r, 0, sizeof r);
    const double t0 = iohw_clock_s();
    if (make_dirs(dir) != 0)
        return iohw_error_set(err, "cannot create directory %s: %s", dir, strerror(errno));
    remove_stale_files(plan, dir);
    if (pool_start(&pl, plan, threads, err) != 0)
        return -1;

    writer w = {.plan = plan, .dir = dir, .log = log, .r = &r, .file = -1};
    int rc = write_cases(&pl, &w, err);
    if (rc == 0) {
        for (int k = 0; k < plan->nfiles; k++)
            r.bytes += r.file_bytes[k];
        rc = write_manifest(plan, dir, &r, err);
    }
    if (w.f != NULL)
        iohw_case_file_close(w.f, NULL);
    pool_stop(&pl);
    r.seconds = iohw_clock_s() - t0;
    if (report != NULL)
        *report = r;
    return rc;
}
