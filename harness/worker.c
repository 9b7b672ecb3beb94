/*
 * harness/worker.c - the isolated worker process of `iohw run` (see
 * worker.h): guarded buffers, the backend calls, comparison and diagnosis of
 * one case at a time.
 */
#include "harness/worker.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "cases/case.h"
#include "harness/adapt.h"
#include "harness/compare.h"
#include "harness/diagnose.h"
#include "harness/loader.h"
#include "harness/repro.h"
#include "harness/run_internal.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"


#ifdef IOHW_COVERAGE
/* Workers leave with _exit(), which skips gcov's exit handler: write the
 * coverage counters first in coverage builds. */
void __gcov_dump(void);
#define worker_exit(code) (__gcov_dump(), _exit(code))
#else
#define worker_exit(code) _exit(code)
#endif

/* The one piece of process-wide state: a signal handler can reach nothing
 * else.  Set once in the worker process before any backend code runs. */
static iohw_worker_note *fault_note;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    iohw_worker_note *n = fault_note;
    if (n != NULL) {
        if (si->si_code > 0) {
            n->fault_addr = (uintptr_t)si->si_addr;
            n->addr_valid = 1;
        }
        n->signo = sig;
    }
    /* SA_RESETHAND restored the default action: the raised signal (or the
     * faulting instruction, re-executed) now kills the process. */
    raise(sig);
}

static void install_fault_handlers(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS};
    stack_t ss;
    ss.ss_size = 64 * 1024;
    ss.ss_flags = 0;
    ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int onstack = ss.ss_sp != MAP_FAILED && sigaltstack(&ss, NULL) == 0;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO | SA_RESETHAND | (onstack ? SA_ONSTACK : 0);
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

int iohw_worker_asan(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return 1;
#else
    return 0;
#endif
#else
    return 0;
#endif
}

int64_t iohw_worker_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int iohw_worker_sentinel(int dtype, unsigned char bits[8])
{
    uint32_t u32;
    uint64_t u64;
    uint16_t u16;
    switch (dtype) {
    case IOHW_F32:
        u32 = 0x7FA5A5A5u;
        memcpy(bits, &u32, 4);
        return 4;
    case IOHW_F64:
        u64 = 0x7FF4A5A5A5A5A5A5ull;
        memcpy(bits, &u64, 8);
        return 8;
    case IOHW_F16:
        u16 = 0x7D5A;
        memcpy(bits, &u16, 2);
        return 2;
    case IOHW_BF16:
        u16 = 0x7FA5;
        memcpy(bits, &u16, 2);
        return 2;
    default:
        return 0;
    }
}

/* --- guarded buffers ----------------------------------------------------- */

/* [guard page][slack][data][guard page]: data ends where the upper guard
 * begins, so the first byte past it faults. */
typedef struct guarded {
    unsigned char *map;
    size_t map_len, page;
    unsigned char *data;
    size_t len;
} guarded;

static int guarded_map(size_t len, guarded *g)
{
    memset(g, 0, sizeof *g);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t body = (len + page - 1) / page * page;
    if (body == 0)
        body = page;
    void *m = mmap(NULL, body + 2 * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    g->map = m;
    g->map_len = body + 2 * page;
    g->page = page;
    g->data = g->map + page + body - len;
    g->len = len;
    if (mprotect(g->map, page, PROT_NONE) != 0 ||
        mprotect(g->map + page + body, page, PROT_NONE) != 0) {
        munmap(g->map, g->map_len);
        memset(g, 0, sizeof *g);
        return -1;
    }
    return 0;
}

static void guarded_unmap(guarded *g)
{
    if (g->map != NULL)
        munmap(g->map, g->map_len);
    memset(g, 0, sizeof *g);
}

/* The body pages (slack and data) become read-only. */
static int guarded_protect(guarded *g)
{
    return mprotect(g->map + g->page, g->map_len - 2 * g->page, PROT_READ);
}

static unsigned char canary_byte(size_t i)
{
    return (unsigned char)(0x3C + 7 * i);
}

static void canary_fill(guarded *g)
{
    unsigned char *lo = g->map + g->page;
    for (size_t i = 0; lo + i < g->data; i++)
        lo[i] = canary_byte(i);
}

/* Bytes between the first overwritten canary byte and the data (0 when the
 * canary is intact). */
static size_t canary_damage(const guarded *g)
{
    const unsigned char *lo = g->map + g->page;
    for (size_t i = 0; lo + i < g->data; i++)
        if (lo[i] != canary_byte(i))
            return (size_t)(g->data - (lo + i));
    return 0;
}

static void note_region(iohw_worker_note *note, int k, const guarded *g)
{
    iohw_worker_region *rg = &note->regions[k];
    rg->map_lo = (uintptr_t)g->map;
    rg->map_hi = (uintptr_t)(g->map + g->map_len);
    rg->data_lo = (uintptr_t)g->data;
    rg->data_hi = (uintptr_t)(g->data + g->len);
}

/* --- one case ------------------------------------------------------------ */

typedef struct worker {
    const iohw_worker_config *cfg;
    iohw_worker_note *note;
    iohw_loaded_backend lb;
    int loaded;
    char load_error[IOHW_ERROR_MAX];
    iohw_case_file *file;       /* the last file, kept open */
    char path[512];
} worker;

static const char *status_name(int s)
{
    static const char *const names[] = {
        "IOHW_OK", "IOHW_UNSUPPORTED", "IOHW_INVALID_PROBLEM",
        "IOHW_OUT_OF_MEMORY", "IOHW_BACKEND_ERROR", "IOHW_INCOMPATIBLE_ABI"};
    return s >= 0 && s < 6 ? names[s] : "an unknown status";
}

static void enter_call(worker *wk, int call)
{
    atomic_store(&wk->note->call, call);
    atomic_store(&wk->note->call_since_ns, iohw_worker_now_ns());
}

static void leave_call(worker *wk)
{
    atomic_store(&wk->note->call_since_ns, 0);
    atomic_store(&wk->note->call, IOHW_CALL_NONE);
}

static int open_file(worker *wk, const char *path, iohw_error *err)
{
    if (wk->file != NULL && strcmp(wk->path, path) == 0)
        return 0;
    if (wk->file != NULL)
        iohw_case_file_close(wk->file, NULL);
    wk->path[0] = '\0';
    wk->file = iohw_case_file_open(path, err);
    if (wk->file == NULL)
        return -1;
    snprintf(wk->path, sizeof wk->path, "%s", path);
    return 0;
}

/* Maps the four tensors; inputs copied and made read-only, y filled with the
 * sentinel, the slack below y with the canary. */
static int map_tensors(const iohw_case *c, size_t es, const unsigned char *sent,
                       guarded g[IOHW_REGION_COUNT], iohw_error *err)
{
    const iohw_problem *p = &c->p;
    const int64_t count[IOHW_REGION_COUNT] = {
        iohw_problem_x_count(p), iohw_problem_w_count(p),
        p->has_bias ? iohw_problem_bias_count(p) : 0, iohw_problem_y_count(p)};
    const void *src[IOHW_REGION_COUNT] = {c->x, c->w, c->bias, NULL};
    static const char *const names[] = {"x", "w", "bias", "y"};

    for (int k = 0; k < IOHW_REGION_COUNT; k++) {
        size_t len = (size_t)count[k] * es;
        if (k == IOHW_REGION_BIAS && !p->has_bias)
            continue;
        if (guarded_map(len, &g[k]) != 0)
            return iohw_error_set(err, "harness: cannot map %zu bytes for %s: "
                                  "%s", len, names[k], strerror(errno));
        if (k == IOHW_REGION_Y) {
            for (size_t i = 0; i < len; i += es)
                memcpy(g[k].data + i, sent, es);
            canary_fill(&g[k]);
        } else {
            memcpy(g[k].data, src[k], len);
            if (guarded_protect(&g[k]) != 0)
                return iohw_error_set(err, "harness: cannot protect %s: %s",
                                      names[k], strerror(errno));
        }
    }
    return 0;
}

static void describe_failure(iohw_result *r)
{
    if (r->message[0] != '\0')
        return;
    if (r->unwritten > 0)
        snprintf(r->message, sizeof r->message,
                 "%lld of %lld output elements outside the tolerance, %lld of "
                 "them never written; worst error %.3g u*err_bound",
                 (long long)r->mismatches, (long long)r->elements,
                 (long long)r->unwritten, r->worst_ratio);
    else
        snprintf(r->message, sizeof r->message,
                 "%lld of %lld output elements outside the tolerance; worst "
                 "error %.3g u*err_bound",
                 (long long)r->mismatches, (long long)r->elements,
                 r->worst_ratio);
}

/* Asks supports() for the problem in other layouts, most common first;
 * returns 1 and fills xl/wl with the first pair claimed, 0 when none is. */
static int find_layouts(worker *wk, const iohw_problem *p, char xl[16],
                        char wl[16])
{
    char data[16][16], weight[16][16];
    const int nd = iohw_adapt_data_candidates((int)p->rank, data, 16);
    const int nw = iohw_adapt_weight_candidates((int)p->rank, weight, 16);
    for (int i = 0; i < nd; i++) {
        for (int j = 0; j < nw; j++) {
            iohw_problem q = *p;
            memcpy(q.data_layout, data[i], sizeof q.data_layout);
            memcpy(q.weight_layout, weight[j], sizeof q.weight_layout);
            if (iohw_problem_validate(&q, NULL) != 0)
                continue;
            enter_call(wk, IOHW_CALL_SUPPORTS);
            int rc = wk->lb.table->supports(wk->lb.ctx, &q);
            leave_call(wk);
            if (rc == IOHW_OK) {
                memcpy(xl, data[i], 16);
                memcpy(wl, weight[j], 16);
                return 1;
            }
        }
    }
    return 0;
}

static void judge_claimed(worker *wk, const iohw_case *c, iohw_result *r);

/* Runs the backend on a loaded case and judges it. */
static void judge_case(worker *wk, const iohw_case *c, iohw_result *r)
{
    const iohw_backend *b = wk->lb.table;
    iohw_problem p = c->p;

    /* Does the backend claim it? */
    enter_call(wk, IOHW_CALL_SUPPORTS);
    int rc = b->supports(wk->lb.ctx, &p);
    leave_call(wk);
    if (rc == IOHW_OK) {
        judge_claimed(wk, c, r);
        return;
    }
    const char *why = iohw_backend_last_error(&wk->lb);
    char reason[256];
    if (rc == IOHW_UNSUPPORTED)
        snprintf(reason, sizeof reason, "%.250s", why[0] ? why : "not claimed");
    else
        snprintf(reason, sizeof reason, "supports() returned %s: %.200s",
                 status_name(rc), why[0] ? why : "not claimed");

    /* --adapt-layout: the same numbers in layouts the backend claims. */
    char xl[16], wl[16];
    if (rc == IOHW_UNSUPPORTED && wk->cfg->adapt_layout &&
        find_layouts(wk, &c->p, xl, wl)) {
        iohw_case a;
        iohw_error err = {{0}};
        if (iohw_adapt_case(c, xl, wl, &a, &err) != 0) {
            r->status = IOHW_RESULT_ERROR;
            snprintf(r->message, sizeof r->message, "harness: %.480s", err.msg);
            return;
        }
        judge_claimed(wk, &a, r);
        iohw_case_free(&a);
        char note[sizeof r->message + 128];
        snprintf(note, sizeof note, IOHW_REPRO_ADAPTED "%s/%s (adapted from "
                 "%s/%s)%s%s", xl, wl, c->p.data_layout, c->p.weight_layout,
                 r->message[0] ? "; " : "", r->message);
        snprintf(r->message, sizeof r->message, "%.*s",
                 (int)sizeof r->message - 1, note);
        return;
    }
    /* A supports() that fails is the backend's error, not a refusal. */
    r->status = rc == IOHW_UNSUPPORTED ? IOHW_RESULT_UNSUPPORTED
                                       : IOHW_RESULT_ERROR;
    snprintf(r->message, sizeof r->message, "%s%s", reason,
             rc == IOHW_UNSUPPORTED && wk->cfg->adapt_layout
                 ? " (and in no other layout either)" : "");
}

/* Runs a claimed case in guarded buffers and judges the output. */
static void judge_claimed(worker *wk, const iohw_case *c, iohw_result *r)
{
    const iohw_backend *b = wk->lb.table;
    iohw_problem p = c->p;
    iohw_error err = {{0}};
    int rc;

    /* Guarded buffers. */
    unsigned char sent[8];
    size_t es = (size_t)iohw_worker_sentinel((int)c->p.dtype, sent);
    guarded g[IOHW_REGION_COUNT];
    memset(g, 0, sizeof g);
    if (es == 0 || map_tensors(c, es, sent, g, &err) != 0) {
        r->status = IOHW_RESULT_ERROR;
        snprintf(r->message, sizeof r->message, "%.480s%s",
                 es == 0 ? "harness: unknown dtype" : err.msg,
                 wk->cfg->memory_limit_mb > 0 ? " (memory limit reached?)" : "");
        goto out;
    }
    for (int k = 0; k < IOHW_REGION_COUNT; k++)
        if (g[k].map != NULL)
            note_region(wk->note, k, &g[k]);

    /* Run it. */
    enter_call(wk, IOHW_CALL_RUN);
    int64_t t0 = iohw_worker_now_ns();
    rc = b->run(wk->lb.ctx, &p, g[IOHW_REGION_X].data, g[IOHW_REGION_W].data,
                p.has_bias ? g[IOHW_REGION_BIAS].data : NULL,
                g[IOHW_REGION_Y].data);
    r->seconds = (double)(iohw_worker_now_ns() - t0) * 1e-9;
    leave_call(wk);
    if (rc != IOHW_OK) {
        r->status = IOHW_RESULT_ERROR;
        snprintf(r->message, sizeof r->message, "run() returned %s: %s",
                 status_name(rc), iohw_backend_last_error(&wk->lb));
        goto out;
    }

    /* Guards, then the numbers. */
    size_t below = canary_damage(&g[IOHW_REGION_Y]);
    if (below > 0) {
        r->status = IOHW_RESULT_CRASH;
        snprintf(r->message, sizeof r->message,
                 "run() wrote %zu byte(s) before the start of y: an "
                 "out-of-bounds write", below);
        goto out;
    }
    iohw_compare(c, g[IOHW_REGION_Y].data, sent, r);
    if (r->status == IOHW_RESULT_FAIL) {
        if (wk->cfg->diagnose)
            iohw_diagnose(c, g[IOHW_REGION_Y].data, r->diagnosis,
                          sizeof r->diagnosis);
        describe_failure(r);
    }
out:
    memset(wk->note->regions, 0, sizeof wk->note->regions);
    for (int k = 0; k < IOHW_REGION_COUNT; k++)
        guarded_unmap(&g[k]);
}

static void run_case(worker *wk, const iohw_worker_request *rq, iohw_result *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->case_id, sizeof r->case_id, "%.*s", (int)sizeof rq->case_id,
             rq->case_id);
    snprintf(r->file, sizeof r->file, "%.*s", (int)sizeof rq->file, rq->file);
    if (!wk->loaded) {
        r->status = IOHW_RESULT_ERROR;
        snprintf(r->message, sizeof r->message, "%.*s",
                 (int)sizeof r->message - 1, wk->load_error);
        return;
    }

    iohw_error err = {{0}};
    iohw_case c;
    memset(&c, 0, sizeof c);
    if (open_file(wk, r->file, &err) != 0 ||
        iohw_case_file_read(wk->file, r->case_id, IOHW_READ_ALL, &c, &err) != 0) {
        r->status = IOHW_RESULT_INVALID;
        snprintf(r->message, sizeof r->message, "%.480s%s", err.msg,
                 wk->cfg->memory_limit_mb > 0 ? " (memory limit reached?)" : "");
        return;
    }
    snprintf(r->descriptor, sizeof r->descriptor, "%s", c.descriptor);
    snprintf(r->tags, sizeof r->tags, "%s", c.tags);
    judge_case(wk, &c, r);
    iohw_case_free(&c);
}

/* --- the worker's life --------------------------------------------------- */

void iohw_worker_main(const iohw_worker_config *cfg, int req_fd, int rep_fd,
                      iohw_worker_note *note)
{
    /* Die with the parent; leave Ctrl-C to it. */
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    signal(SIGINT, SIG_IGN);
    signal(SIGPIPE, SIG_DFL);
    fault_note = note;
    install_fault_handlers();

    worker *wk = calloc(1, sizeof *wk);
    if (wk == NULL)
        worker_exit(70);
    wk->cfg = cfg;
    wk->note = note;
    iohw_error err = {{0}};
    if (iohw_backend_load(cfg->backend, &wk->lb, &err) == 0) {
        wk->loaded = 1;
    } else {
        snprintf(wk->load_error, sizeof wk->load_error,
                 "the worker cannot load the backend: %.900s", err.msg);
    }
    if (cfg->memory_limit_mb > 0 && !iohw_worker_asan()) {
        struct rlimit rl;
        rl.rlim_cur = rl.rlim_max = (rlim_t)cfg->memory_limit_mb << 20;
        setrlimit(RLIMIT_AS, &rl);
    }

    iohw_worker_request rq;
    iohw_worker_reply *rep = calloc(1, sizeof *rep);
    if (rep == NULL)
        worker_exit(70);
    while (iohw__read_full(req_fd, &rq, sizeof rq) == 1) {
        memset(rep, 0, sizeof *rep);
        rep->task = rq.task;
        run_case(wk, &rq, &rep->r);
        if (iohw__write_full(rep_fd, rep, sizeof *rep) != 0)
            break;
    }
    if (wk->file != NULL)
        iohw_case_file_close(wk->file, NULL);
    if (wk->loaded)
        iohw_backend_unload(&wk->lb);
    worker_exit(0);
}
