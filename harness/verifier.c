/*
 * harness/verifier.c - the verifier process of `iohw run` (see worker.h):
 * reads each case, has its worker run the backend on it, checks the canary,
 * compares and diagnoses.  The backend never runs in this process, so
 * nothing it does to its own process can change a verdict.
 */
#include "harness/verifier_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "judge/adapt.h"
#include "judge/compare.h"
#include "judge/diagnose.h"
#include "judge/judge.h"
#include "sandbox/loader.h"
#include "sandbox/run_call.h"
#include "harness/run_internal.h"
#include "sandbox/test_hook.h"
#include "harness/timeouts.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"
#include "oracle/clock.h"

_Static_assert(IOHW_RESULT_ID_MAX == IOHW_CASE_ID_MAX - 1,
               "a result holds any case id (results/result.h, cases/case.h)");

/* The reader starts on a dataset: the note says which. */
static void on_dataset(void *ctx, const char *name)
{
    iohw_worker_note *note = ctx;
    snprintf(note->reading, sizeof note->reading, "dataset '%s'", name);
    IOHW_TEST_HOOK("verifier", name);
}

static void set_stage(iohw__verifier *v, int stage)
{
    atomic_store(&v->note->stage_since_ns, iohw_clock_ns());
    atomic_store(&v->note->stage, stage);
}

static int open_file(iohw__verifier *v, const char *path, iohw_error *err)
{
    if (v->file != NULL && strcmp(v->path, path) == 0)
        return 0;
    if (v->file != NULL)
        iohw_case_file_close(v->file, NULL);
    v->path[0] = '\0';
    v->file = iohw_case_file_open(path, err);
    if (v->file == NULL)
        return -1;
    snprintf(v->path, sizeof v->path, "%s", path);
    return 0;
}

/* The timing of a performance run (--repeat): never part of the verdict. */
static void record_speed(const iohw__verifier *v, const iohw_case *c,
                         const iohw_work_reply *w, iohw_result *r)
{
    if (v->cfg->repeat < 1 || w->repeat < 1)
        return;
    r->repeat = w->repeat;
    r->time_ms = w->seconds * 1e3;
    r->time_min_ms = w->seconds_min * 1e3;
    r->gmacs = w->seconds > 0 ? iohw_problem_macs(&c->p) / w->seconds * 1e-9
                              : 0;
    if (w->ref_seconds > 0 && w->seconds > 0) {
        r->ref_time_ms = w->ref_seconds * 1e3;
        r->ratio = w->ref_seconds / w->seconds;
    }
}

/* Judges the output the worker's run() left in t. */
static void judge_output(iohw__verifier *v, const iohw_case *c,
                         const iohw__tensors *t, const iohw_work_reply *w,
                         iohw_result *r)
{
    r->seconds = w->seconds;
    if (w->rc == IOHW_OK)
        record_speed(v, c, w, r);
    if (w->rc != IOHW_OK) {
        r->status = IOHW_RESULT_ERROR;
        r->message = iohw_text_fmt("%s returned %s: %s",
                 iohw__run_call_of(&c->p)->name,
                 iohw_backend_status_name(w->rc), w->message);
        if (iohw__tensors_canary_damage(t) == 0) {
            const iohw_judge_options o = {v->cfg->diagnose, v->cfg->rounding,
                                          v->cfg->subnormals_flush};
            iohw_judge_call_error(c, iohw__tensors_y(t), t->sent, w->message,
                                  &o, r);
        }
        return;
    }

    /* Guards, then the numbers. */
    set_stage(v, IOHW_STAGE_JUDGING);
    IOHW_TEST_HOOK("verifier", "compare");
    size_t below = iohw__tensors_canary_damage(t);
    if (below > 0) {
        r->status = IOHW_RESULT_CRASH;
        r->message = iohw_text_fmt(
                 "%s wrote %zu byte(s) before the start of %s: an "
                 "out-of-bounds write", iohw__run_call_of(&c->p)->name, below,
                 iohw_problem_is_backward(&c->p)
                     ? (c->p.direction == IOHW_DIR_BWD_D ? "dx" : "dw")
                     : "y");
        return;
    }
    const iohw_judge_options o = {v->cfg->diagnose, v->cfg->rounding,
                                  v->cfg->subnormals_flush};
    iohw_judge(c, iohw__tensors_y(t), t->sent, &o, r);
}

/* Hands c to the worker in guarded buffers: kind IOHW_WORK_CASE (supports()
 * first) or IOHW_WORK_RUN.  Returns 1 when supports() did not claim it (*w
 * says why), 0 when the case is settled in r. */
static int send_case(iohw__verifier *v, const iohw_case *c, uint32_t kind,
                     iohw_work_reply *w, iohw_result *r)
{
    iohw_error err = {{0}};
    iohw__tensors t;
    if (iohw__tensors_make(v, c, &t, &err) != 0) {
        r->status = IOHW_RESULT_ERROR;
        r->message = iohw_text_keep(err.msg);
        iohw__tensors_free(&t);
        return 0;
    }
    uint32_t adapt = (uint32_t)v->cfg->adapt_layout;
    iohw__msg_reset(&v->msg);
    iohw__msg_put(&v->msg, &kind, sizeof kind);
    iohw__msg_put(&v->msg, &c->p, sizeof c->p);
    iohw__msg_put(&v->msg, &adapt, sizeof adapt);
    iohw__msg_put(&v->msg, t.pc, sizeof t.pc);
    int rc = 0;
    if (iohw__verifier_ask(v, v->memfd, w, r) == 0) {
        if (w->call == IOHW_CALL_RUN)
            judge_output(v, c, &t, w, r);
        else
            rc = 1;
    }
    iohw__tensors_free(&t);
    return rc;
}

/* Runs the backend on a loaded case and judges it. */
static void judge_case(iohw__verifier *v, const iohw_case *c, iohw_result *r)
{
    iohw_work_reply w;
    if (send_case(v, c, IOHW_WORK_CASE, &w, r) == 0)
        return;
    const char *why = w.message[0] ? w.message : "not claimed";
    const char *reason = w.rc == IOHW_UNSUPPORTED ? why
        : iohw_text_fmt("supports() returned %s: %s",
                        iohw_backend_status_name(w.rc), why);

    /* --adapt-layout: the same numbers in layouts the backend claims. */
    if (w.rc == IOHW_UNSUPPORTED && v->cfg->adapt_layout && w.adapted) {
        iohw_case a;
        iohw_error err = {{0}};
        if (iohw_adapt_case(c, w.xl, w.wl, &a, &err) != 0) {
            r->status = IOHW_RESULT_ERROR;
            r->message = iohw_text_fmt("harness: %s", err.msg);
            return;
        }
        iohw_work_reply wa;
        if (send_case(v, &a, IOHW_WORK_RUN, &wa, r) != 0) {
            r->status = IOHW_RESULT_ERROR;
            r->message = iohw_text_fmt("harness: the worker did "
                     "not run the adapted case");
        }
        iohw_case_free(&a);
        r->message = iohw_text_fmt(IOHW_REPRO_ADAPTED "%s/%s (adapted from "
                                   "%s/%s)%s%s", w.xl, w.wl, c->p.data_layout,
                                   c->p.weight_layout,
                                   r->message[0] ? "; " : "", r->message);
        return;
    }
    /* A supports() that fails is the backend's error, not a refusal. */
    r->status = w.rc == IOHW_UNSUPPORTED ? IOHW_RESULT_UNSUPPORTED
                                         : IOHW_RESULT_ERROR;
    r->message = iohw_text_fmt("%s%s", reason,
             w.rc != IOHW_UNSUPPORTED || !v->cfg->adapt_layout ? ""
             : " (and in no other layout either)");
}

static void run_case(iohw__verifier *v, const char *file, const char *id,
                     iohw_result *r)
{
    iohw_result_init(r);
    r->case_id = iohw_text_keep(id);
    r->file = iohw_text_keep(file);

    iohw_error err = {{0}};
    iohw_case c;
    memset(&c, 0, sizeof c);
    snprintf(v->note->reading, sizeof v->note->reading, "the file's metadata");
    set_stage(v, IOHW_STAGE_READING);
    int rc = open_file(v, file, &err);
    snprintf(v->note->reading, sizeof v->note->reading, "the attributes");
    if (rc != 0 ||
        iohw_case_file_read(v->file, id, IOHW_READ_ALL, &c, &err) != 0) {
        r->status = IOHW_RESULT_INVALID;
        r->message = iohw_text_keep(err.msg);
        return;
    }
    set_stage(v, IOHW_STAGE_BACKEND);
    r->descriptor = iohw_text_keep(c.descriptor);
    r->tags = iohw_text_keep(c.tags);
    if (iohw_problem_is_backward(&c.p))
        snprintf(r->direction, sizeof r->direction, "%s",
                 iohw_direction_name(&c.p));
    judge_case(v, &c, r);
    iohw_case_free(&c);
}

/* --- the verifier's life --------------------------------------------------- */

static void serve(iohw__verifier *v, int req_fd, int rep_fd)
{
    static char file[PATH_MAX];
    char id[IOHW_CASE_ID_MAX];
    iohw_result *r = calloc(1, sizeof *r);
    iohw__msg in;
    memset(&in, 0, sizeof in);
    while (r != NULL && !v->w_dead && iohw__msg_recv(req_fd, &in, NULL) == 1) {
        int64_t task = -1;
        if (iohw__request_decode(&in, &task, file, sizeof file, id,
                                 sizeof id) != 0)
            break;
        run_case(v, file, id, r);
        /* --isolate: the next case gets a fresh worker (started by the
         * next request, iohw__verifier_ask). */
        if (v->cfg->isolate)
            iohw__verifier_stop(v);
        set_stage(v, IOHW_STAGE_IDLE);
        iohw__reply_encode(&in, task, v->w_dead, r);
        if (iohw__msg_send(rep_fd, &in, -1) != 0)
            break;
    }
    iohw__msg_free(&in);
    free(r);
}

void iohw_verifier_main(const iohw_worker_config *cfg, int req_fd, int rep_fd,
                        iohw_worker_note *note)
{
    /* Die with the parent; leave Ctrl-C to it; one process group with the
     * worker, so that the parent can kill both. */
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    signal(SIGINT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    setpgid(0, 0);
    iohw_case_read_watch(on_dataset, note);

    iohw__verifier *v = calloc(1, sizeof *v);
    if (v == NULL)
        iohw__exit_child(IOHW__EXIT_CHILD_SETUP);
    v->cfg = cfg;
    v->note = note;
    v->memfd = -1;
    set_stage(v, IOHW_STAGE_IDLE);
    if (iohw__verifier_spawn(v) != 0)
        v->w_pid = 0;   /* retried, and reported, with the first case */
    serve(v, req_fd, rep_fd);
    if (v->file != NULL)
        iohw_case_file_close(v->file, NULL);
    iohw__verifier_stop(v);
    iohw__msg_free(&v->msg);
    iohw__exit_child(0);
}
