/*
 * harness/run.c - `iohw run`: the parent process.  Has the backend loaded
 * once in a child to fail fast, expands the inputs, takes what the journal
 * already holds, then keeps `jobs` forked verifiers busy (verifier.c, each
 * with its worker, worker.c), turning overlong backend calls into TIMEOUT
 * and a verifier's death into INVALID (it died reading the case file) or a
 * harness ERROR, and appends every result to the journal as it arrives (see
 * run.h).  It never loads the backend itself.
 */
#include "harness/run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/breaker.h"
#include "sandbox/channel.h"
#include "harness/console.h"
#include "harness/filter.h"
#include "results/journal.h"
#include "harness/listing.h"
#include "sandbox/loader.h"
#include "harness/timeouts.h"
#include "sandbox/worker.h"
#include "harness/run_internal.h"
#include "oracle/clock.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"

/* Polling period while a progress bar is shown, and otherwise. */
#define POLL_BAR_MS 100
#define POLL_IDLE_MS 1000
/* How long finished workers get to exit before they are killed. */
#define EXIT_GRACE_MS 2000

/* One verifier process (with its worker) and the case it holds. */
typedef struct slot {
    pid_t pid;               /* the verifier, leader of its process group;
                                0: none */
    int req_fd, rep_fd;      /* parent's ends */
    int64_t task;            /* entry index, or -1 when idle */
    int64_t sent_ns;         /* when the case was handed over */
    iohw_worker_note *note;  /* shared with the verifier and the worker */
} slot;

typedef struct run_state {
    const iohw_run_options *o;
    iohw_worker_config cfg;
    iohw_listing suite;
    iohw_run_results *out;
    int64_t *pending;        /* entry indices still to run, in order */
    int64_t npending, next;
    slot *slots;
    int nslots;
    iohw_journal *journal;
    iohw_console con;
    iohw_error *err;
    int stop;                /* an I/O error stops the run */
    double *limits;          /* per entry: the backend-call limit */
    iohw_breaker breaker;    /* classes whose cases are not run */
    iohw_repro_options repro;
    iohw__msg msg;           /* the record being sent or received */
} run_state;

/* --- results ------------------------------------------------------------- */

/* A backward case's direction, from the listing's descriptor
 * (specification section 13), so that a TIMEOUT or CRASH made here is
 * grouped with its direction; "" for a forward or unparsable one. */
static void entry_direction(const char *descriptor, char *out, size_t n)
{
    iohw_desc d;
    out[0] = '\0';
    if (descriptor[0] != '\0' && iohw_desc_parse(descriptor, &d, NULL) == 0 &&
        iohw_problem_is_backward(&d.p))
        snprintf(out, n, "%s", iohw_direction_name(&d.p));
}

/* A result for an entry the worker could not report itself. */
static void entry_result(const run_state *st, int64_t task,
                         iohw_result_status status, const char *message,
                         iohw_result *r)
{
    const iohw_listing_entry *e = &st->suite.entries[task];
    iohw_result_init(r);
    r->case_id = iohw_text_keep(e->id);
    r->file = iohw_text_keep(st->suite.files[e->file]);
    r->descriptor = iohw_text_keep(e->descriptor);
    r->tags = iohw_text_keep(e->tags);
    entry_direction(e->descriptor, r->direction, sizeof r->direction);
    r->message = iohw_text_keep(message);
    r->status = status;
}

/* Stores a result produced by this run, journals it, shows it. */
static void record(run_state *st, int64_t task, const iohw_result *r,
                   double wall)
{
    st->out->items[task] = *r;
    st->out->wall[task] = wall;
    if (st->journal != NULL && !st->stop &&
        iohw_journal_append(st->journal, r, st->err) != 0)
        st->stop = 1;
    iohw_console_add(&st->con, r, 1);
}

/* --- workers ------------------------------------------------------------- */

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* What a verifier is started with. */
typedef struct verifier_args {
    run_state *st;
    slot *s;
} verifier_args;

static int verifier_child(void *arg, const int *fd)
{
    const verifier_args *a = arg;
    /* The verifier keeps only its own two ends. */
    for (int i = 0; i < a->st->nslots; i++) {
        if (a->st->slots[i].req_fd >= 0)
            close(a->st->slots[i].req_fd);
        if (a->st->slots[i].rep_fd >= 0)
            close(a->st->slots[i].rep_fd);
    }
    iohw_verifier_main(&a->st->cfg, fd[0], fd[1], a->s->note);
}

static int spawn(run_state *st, slot *s)
{
    verifier_args a = {st, s};
    iohw_spawn sp = {.nends = 2, .own_group = 1,
                     .ends = {IOHW_SPAWN_TO_CHILD, IOHW_SPAWN_FROM_CHILD}};
    memset(s->note, 0, sizeof *s->note);
    if (iohw_spawn_start(&sp, verifier_child, &a) != 0)
        return -1;
    s->pid = sp.pid;
    s->req_fd = sp.fd[0];
    s->rep_fd = sp.fd[1];
    s->task = -1;
    return 0;
}

/* Kills the verifier of s and its worker. */
static void kill_slot(slot *s)
{
    iohw_spawn_kill(s->pid, 1);
}

/* Waits for a verifier that is gone (or SIGKILLed) and forgets it. */
static int reap(slot *s)
{
    close_fd(&s->req_fd);
    close_fd(&s->rep_fd);
    int status = iohw_spawn_reap(s->pid);
    s->pid = 0;
    return status;
}

static void dispatch(run_state *st, slot *s, int64_t task)
{
    const iohw_listing_entry *e = &st->suite.entries[task];
    iohw__request_encode(&st->msg, task, st->suite.files[e->file], e->id);
    s->task = task;
    s->sent_ns = iohw_clock_ns();
    /* A verifier that died meanwhile shows up as end of file on rep_fd, and
     * its case is settled there. */
    (void)iohw__msg_send(s->req_fd, &st->msg, -1);
}

/* What a verifier's death means for its case: it died reading the case
 * file (the file's fault: INVALID), or doing the harness's own work (an
 * ERROR of the harness, never the backend's CRASH). */
static iohw_result_status death_verdict(const run_state *st, const slot *s,
                                        int status, char *msg, size_t n)
{
    const iohw_listing_entry *e = &st->suite.entries[s->task];
    char how[256];
    iohw_worker_death_message(status, NULL, how, (int)sizeof how);
    if (atomic_load(&s->note->stage) == IOHW_STAGE_READING) {
        snprintf(msg, n, "the case file cannot be read: reading %.200s of "
                 "case '%s' in '%s' killed the reader (%s)", s->note->reading,
                 e->id, st->suite.files[e->file], how);
        return IOHW_RESULT_INVALID;
    }
    snprintf(msg, n, "harness: the verifier process (which never runs the "
             "backend) died while judging the case: %s; this is a bug of "
             "iohw, not of the backend", how);
    return IOHW_RESULT_ERROR;
}

/* The verifier of s has gone (end of file on its pipe).  After a worker's
 * death it replies and exits; dying itself with a case in hand settles the
 * case (death_verdict). */
static void on_death(run_state *st, slot *s)
{
    int64_t task = s->task;
    int64_t sent = s->sent_ns;
    kill_slot(s);
    int status = reap(s);
    if (task < 0)
        return;
    char msg[1024];
    s->task = task;
    iohw_result_status verdict = death_verdict(st, s, status, msg, sizeof msg);
    iohw_result r;
    entry_result(st, task, verdict, msg, &r);
    record(st, task, &r, (double)(iohw_clock_ns() - sent) * 1e-9);
    s->task = -1;
}

static void on_reply(run_state *st, slot *s)
{
    static iohw_result r;
    int64_t got = -1;
    int last = 0;
    int k = iohw__msg_recv(s->rep_fd, &st->msg, NULL);
    if (k != 1) {
        on_death(st, s);
        return;
    }
    if (iohw__reply_decode(&st->msg, &got, &last, &r) != 0 || got != s->task ||
        s->task < 0) {
        /* Not the case it was given: treat the verifier as broken. */
        kill_slot(s);
        on_death(st, s);
        return;
    }
    double wall = (double)(iohw_clock_ns() - s->sent_ns) * 1e-9;
    int64_t task = s->task;
    s->task = -1;
    record(st, task, &r, wall);
    if (last)
        on_death(st, s);   /* it is leaving: no case for it */
}

/* A verifier reading its case for longer than limit: the file's fault. */
static int reading_overdue(const run_state *st, const slot *s, int64_t now,
                           double limit, char *msg, size_t n)
{
    int64_t since = atomic_load(&s->note->stage_since_ns);
    if (atomic_load(&s->note->stage) != IOHW_STAGE_READING ||
        (double)(now - since) * 1e-9 <= limit)
        return 0;
    const iohw_listing_entry *e = &st->suite.entries[s->task];
    snprintf(msg, n, "the case file cannot be read: reading %.200s of case "
             "'%s' in '%s' did not finish within %g s; the reader was killed",
             s->note->reading, e->id, st->suite.files[e->file], limit);
    return 1;
}

/* The limit of a whole case whose backend calls have limit each: with
 * --repeat N the backend's run() is called N times, and the reference as
 * often again. */
static double case_ceiling(const run_state *st, double limit)
{
    int calls = st->cfg.repeat > 1 ? st->cfg.repeat : 1;
    return iohw__case_ceiling(limit * calls *
                              (st->cfg.speed_reference ? 2 : 1));
}

/* Kills the verifier and worker of s when its case is overdue. */
static void check_timeout(run_state *st, slot *s, int64_t now)
{
    if (s->pid == 0 || s->task < 0 || st->limits[s->task] <= 0)
        return;
    double limit = st->limits[s->task];
    int64_t since = atomic_load(&s->note->call_since_ns);
    int call = atomic_load(&s->note->call);
    char msg[1024];
    iohw_result_status status = IOHW_RESULT_TIMEOUT;
    if (reading_overdue(st, s, now, limit, msg, sizeof msg)) {
        status = IOHW_RESULT_INVALID;
    } else if (since != 0 && (double)(now - since) * 1e-9 > limit) {
        snprintf(msg, sizeof msg, "%.24s did not return within %g s; the "
                 "worker was killed",
                 s->note->call_name[0] != '\0' ? s->note->call_name
                 : call == IOHW_CALL_SUPPORTS   ? "supports()"
                                                : "run()",
                 limit);
    } else if ((double)(now - s->sent_ns) * 1e-9 > case_ceiling(st, limit)) {
        snprintf(msg, sizeof msg, "the case did not finish within %g s "
                 "(loading, running, comparing and diagnosing); the worker was "
                 "killed", case_ceiling(st, limit));
    } else {
        return;
    }
    int64_t task = s->task;
    kill_slot(s);
    reap(s);
    s->task = -1;
    iohw_result r;
    entry_result(st, task, status, msg, &r);
    record(st, task, &r, (double)(now - s->sent_ns) * 1e-9);
    if (status == IOHW_RESULT_TIMEOUT)
        iohw_breaker_timeout(&st->breaker, task);
}

/* Records the next pending cases of classes the breaker has opened as not
 * run (TIMEOUT with the breaker's reason). */
static void skip_open_classes(run_state *st)
{
    char msg[256];
    while (st->next < st->npending &&
           iohw_breaker_open(&st->breaker, st->pending[st->next], msg,
                             sizeof msg)) {
        int64_t task = st->pending[st->next++];
        iohw_result r;
        entry_result(st, task, IOHW_RESULT_TIMEOUT, msg, &r);
        record(st, task, &r, 0.0);
    }
}

/* Milliseconds until the next overdue case (capped at cap). */
static int poll_wait_ms(const run_state *st, int64_t now, int cap)
{
    double wait = cap;
    for (int i = 0; i < st->nslots; i++) {
        const slot *s = &st->slots[i];
        if (s->pid == 0 || s->task < 0 || st->limits[s->task] <= 0)
            continue;
        double limit = st->limits[s->task];
        int64_t since = atomic_load(&s->note->call_since_ns);
        double left_call = since != 0 ? limit - (double)(now - since) * 1e-9
                                      : limit;
        double left_case = case_ceiling(st, limit) -
                           (double)(now - s->sent_ns) * 1e-9;
        double left = left_call < left_case ? left_call : left_case;
        if (left * 1000 + 1 < wait)
            wait = left * 1000 + 1;
    }
    return wait < 1 ? 1 : (int)wait;
}

/* Hands out every case and collects every result. */
static int schedule(run_state *st)
{
    struct pollfd *fds = calloc((size_t)st->nslots, sizeof *fds);
    int *who = calloc((size_t)st->nslots, sizeof *who);
    if (fds == NULL || who == NULL) {
        free(fds);
        free(who);
        return iohw_error_set(st->err, "out of memory starting workers");
    }
    int cap = st->con.mode == IOHW_PROGRESS_BAR ? POLL_BAR_MS : POLL_IDLE_MS;
    for (;;) {
        /* Start workers and hand out cases. */
        int busy = 0, alive = 0;
        for (int i = 0; i < st->nslots && !st->stop; i++) {
            slot *s = &st->slots[i];
            skip_open_classes(st);
            if (s->pid == 0 && st->next < st->npending && spawn(st, s) != 0)
                continue;
            if (s->pid != 0 && s->task < 0 && st->next < st->npending)
                dispatch(st, s, st->pending[st->next++]);
        }
        int n = 0;
        for (int i = 0; i < st->nslots; i++) {
            slot *s = &st->slots[i];
            if (s->pid == 0)
                continue;
            alive++;
            busy += s->task >= 0;
            fds[n].fd = s->rep_fd;
            fds[n].events = POLLIN;
            fds[n].revents = 0;
            who[n++] = i;
        }
        if (busy == 0 && (st->next >= st->npending || st->stop))
            break;
        if (alive == 0) {
            free(fds);
            free(who);
            return iohw_error_set(st->err, "cannot start a worker process: %s",
                                  strerror(errno));
        }

        /* Wait for replies, deaths or deadlines. */
        int64_t now = iohw_clock_ns();
        int k = poll(fds, (nfds_t)n, poll_wait_ms(st, now, cap));
        if (k < 0 && errno != EINTR) {
            free(fds);
            free(who);
            return iohw_error_set(st->err, "poll: %s", strerror(errno));
        }
        for (int j = 0; k > 0 && j < n; j++) {
            if (fds[j].revents == 0)
                continue;
            slot *s = &st->slots[who[j]];
            if (fds[j].revents & POLLIN)
                on_reply(st, s);
            else
                on_death(st, s);
        }
        now = iohw_clock_ns();
        for (int i = 0; i < st->nslots; i++)
            check_timeout(st, &st->slots[i], now);
        iohw_console_tick(&st->con);
    }
    free(fds);
    free(who);
    return st->stop ? -1 : 0;
}

/* Closes the request pipes; workers exit on end of file.  Those that do not
 * within EXIT_GRACE_MS (a backend's fini hanging) are killed. */
static void stop_workers(run_state *st)
{
    for (int i = 0; i < st->nslots; i++)
        close_fd(&st->slots[i].req_fd);
    int64_t deadline = iohw_clock_ns() + (int64_t)EXIT_GRACE_MS * 1000000;
    for (int i = 0; i < st->nslots; i++) {
        slot *s = &st->slots[i];
        if (s->pid == 0)
            continue;
        if (s->task >= 0)
            kill_slot(s);
        char sink[256];
        for (;;) {
            int64_t left = (deadline - iohw_clock_ns()) / 1000000;
            struct pollfd pf = {s->rep_fd, POLLIN, 0};
            if (left <= 0 || poll(&pf, 1, (int)left) <= 0) {
                kill_slot(s);
                break;
            }
            if (read(s->rep_fd, sink, sizeof sink) <= 0)
                break;
        }
        reap(s);
    }
}

/* --- the run ------------------------------------------------------------- */

static int setup(run_state *st, iohw_error *err)
{
    const iohw_run_options *o = st->o;
    int jobs = o->jobs > 0 ? o->jobs : iohw__default_jobs();
    if (jobs > st->npending)
        jobs = st->npending > 0 ? (int)st->npending : 1;
    st->nslots = jobs;
    st->slots = calloc((size_t)jobs, sizeof *st->slots);
    if (st->slots == NULL)
        return iohw_error_set(err, "out of memory starting workers");
    for (int i = 0; i < jobs; i++) {
        slot *s = &st->slots[i];
        s->req_fd = s->rep_fd = -1;
        s->task = -1;
        void *m = mmap(NULL, sizeof *s->note, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return iohw_error_set(err, "cannot map a shared page: %s",
                                  strerror(errno));
        s->note = m;
    }
    return 0;
}

static void teardown(run_state *st)
{
    if (st->slots != NULL) {
        stop_workers(st);
        for (int i = 0; i < st->nslots; i++)
            if (st->slots[i].note != NULL)
                munmap(st->slots[i].note, sizeof *st->slots[i].note);
    }
    free(st->slots);
    free(st->pending);
    free(st->limits);
    iohw_breaker_free(&st->breaker);
    iohw__msg_free(&st->msg);
    iohw_listing_free(&st->suite);
}

/* Records the results already known (the journal's: known[i] == 1) and
 * the unreadable entries (INVALID); queues every other entry in pending. */
static void sort_entries(run_state *st, const unsigned char *known)
{
    for (int64_t i = 0; i < st->suite.count; i++) {
        if (known[i] == 1) {
            iohw_console_add(&st->con, &st->out->items[i], 0);
            iohw_breaker_resumed(&st->breaker, i, &st->out->items[i]);
        } else if (st->suite.entries[i].invalid != NULL) {
            iohw_result r;
            entry_result(st, i, IOHW_RESULT_INVALID,
                         st->suite.entries[i].invalid, &r);
            record(st, i, &r, 0.0);
        } else {
            st->pending[st->npending++] = i;
        }
    }
}

/* Runs the pending entries in the worker processes, with SIGPIPE ignored
 * (a write to a dead worker's pipe fails instead) and SIGCHLD at its
 * default (an inherited SIG_IGN would reap the children before they can be
 * waited for); both restored after. */
static int run_pending(run_state *st, iohw_error *err)
{
    struct sigaction ign, old_pipe, dfl, old_chld;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_pipe);
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &dfl, &old_chld);
    int rc = -1;
    if (!st->stop && setup(st, err) == 0)
        rc = schedule(st);
    teardown(st);
    sigaction(SIGPIPE, &old_pipe, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    return rc;
}

int iohw_run(const iohw_run_options *o, iohw_run_results *out, iohw_error *err)
{
    memset(out, 0, sizeof *out);
    run_state st;
    memset(&st, 0, sizeof st);
    st.o = o;
    st.out = out;
    st.err = err;
    int64_t t0 = iohw_clock_ns();
    unsigned char *known = NULL;

    /* Check the options, the backend and the inputs. */
    if (iohw__run_prepare(o, &st.suite, out, err) != 0)
        return -1;
    iohw_machine_detect(&out->machine);
    st.cfg.backend = o->backend;
    st.cfg.diagnose = o->diagnose;
    st.cfg.adapt_layout = o->adapt_layout;
    st.cfg.memory_limit_mb = o->memory_limit_mb;
    st.cfg.subnormals_flush = o->subnormals_flush;
    st.cfg.rounding = o->rounding;
    st.cfg.isolate = o->isolate;
    st.cfg.repeat = o->repeat;
    st.cfg.speed_reference = o->repeat > 0 && o->speed_reference;
    st.limits = iohw_case_timeouts(o, &st.suite);
    if (st.limits == NULL) {
        iohw_error_set(err, "out of memory");
        goto fail;
    }
    if (iohw_breaker_init(&st.breaker, &st.suite, o->breaker, err) != 0)
        goto fail;
    iohw_repro_options_of_run(o, &st.repro);
    out->repro = st.repro;

    /* Results already known: the journal's, and unreadable entries. */
    st.pending = malloc((size_t)(st.suite.count > 0 ? st.suite.count : 1) *
                        sizeof *st.pending);
    if (st.pending == NULL) {
        iohw_error_set(err, "out of memory");
        goto fail;
    }
    if (iohw__run_known(o, &st.suite, out, &known, err) != 0)
        goto fail;
    if (o->journal != NULL) {
        st.journal = iohw_journal_open(o->journal, o->resume, err);
        if (st.journal == NULL)
            goto fail;
    }
    iohw_console_start(&st.con, o->progress, o->failure_blocks, o->backend,
                       st.suite.count, stderr, stdout);
    st.con.repro = &st.repro;
    st.con.show = o->show;
    sort_entries(&st, known);
    free(known);
    known = NULL;

    /* Run the rest. */
    int rc = run_pending(&st, err);
    iohw_console_finish(&st.con);
    if (iohw_journal_close(st.journal, rc == 0 ? err : NULL) != 0)
        rc = -1;
    out->seconds = (double)(iohw_clock_ns() - t0) * 1e-9;
    if (rc != 0)
        iohw_run_results_free(out);
    return rc;

fail:
    free(known);
    iohw_journal_close(st.journal, NULL);
    teardown(&st);
    iohw_run_results_free(out);
    return -1;
}
