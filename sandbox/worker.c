/*
 * sandbox/worker.c - the worker process of `iohw run` (see worker.h): the
 * backend, loaded once, and the tensors its verifier maps into it; nothing
 * else of the case.
 */
#include "sandbox/worker.h"

#include <errno.h>
#include <fcntl.h>
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

#include "judge/adapt.h"
#include "sandbox/channel.h"
#include "sandbox/loader.h"
#include "sandbox/run_call.h"
#include "sandbox/spawn.h"
#include "sandbox/worker_repeat.h"
#include "sandbox/worker_rude.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "oracle/clock.h"


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

/* The alternate stack the fault handler runs on, so that a backend that
 * overflowed its own stack still gets its fault recorded.  on_fault needs
 * little; 64 KiB leaves room for the kernel's signal frame (a few KiB with
 * AVX-512 state). */
#define ALT_STACK_BYTES (64 * 1024)

static void install_fault_handlers(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS};
    stack_t ss;
    ss.ss_size = ALT_STACK_BYTES;
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
    case IOHW_S8:
    case IOHW_U8:
        bits[0] = 0xA5;
        return 1;
    case IOHW_S32:
        memset(bits, 0xA5, 4);
        return 4;
    default:
        return 0;
    }
}

/* --- the replies ---------------------------------------------------------- */

void iohw__work_reply_encode(iohw__msg *m, const iohw_work_reply *w)
{
    iohw__msg_reset(m);
    iohw__msg_put(m, &w->rc, sizeof w->rc);
    iohw__msg_put(m, &w->call, sizeof w->call);
    iohw__msg_put(m, &w->seconds, sizeof w->seconds);
    iohw__msg_put(m, &w->adapted, sizeof w->adapted);
    iohw__msg_put_str(m, w->xl);
    iohw__msg_put_str(m, w->wl);
    iohw__msg_put_str(m, w->message);
    iohw__msg_put_str(m, w->warnings);
    iohw__msg_put(m, &w->repeat, sizeof w->repeat);
    iohw__msg_put(m, &w->seconds_min, sizeof w->seconds_min);
    iohw__msg_put(m, &w->ref_seconds, sizeof w->ref_seconds);
}

int iohw__work_reply_decode(iohw__msg *m, iohw_work_reply *w)
{
    m->pos = 0;
    iohw__msg_get(m, &w->rc, sizeof w->rc);
    iohw__msg_get(m, &w->call, sizeof w->call);
    iohw__msg_get(m, &w->seconds, sizeof w->seconds);
    iohw__msg_get(m, &w->adapted, sizeof w->adapted);
    iohw__msg_get_str(m, w->xl, sizeof w->xl);
    iohw__msg_get_str(m, w->wl, sizeof w->wl);
    w->message = iohw__msg_get_text(m);
    w->warnings = iohw__msg_get_text(m);
    iohw__msg_get(m, &w->repeat, sizeof w->repeat);
    iohw__msg_get(m, &w->seconds_min, sizeof w->seconds_min);
    iohw__msg_get(m, &w->ref_seconds, sizeof w->ref_seconds);
    return m->bad || m->pos != m->len ? -1 : 0;
}

/* --- backend calls -------------------------------------------------------- */

typedef struct worker {
    const iohw_worker_config *cfg;
    iohw_worker_note *note;
    iohw_loaded_backend lb;
    int loaded;
    const char *load_error;  /* a kept text */
    iohw__rude rude;
    int fd;                     /* the socket to the verifier */
    iohw__msg msg;
    iohw_work_reply rep;
} worker;

static void enter_call(worker *wk, int call, const char *name,
                       iohw__rude_snap *snap)
{
    iohw__rude_before(&wk->rude, snap);
    snprintf(wk->note->call_name, sizeof wk->note->call_name, "%s", name);
    atomic_store(&wk->note->call, call);
    atomic_store(&wk->note->call_since_ns, iohw_clock_ns());
}

static void leave_call(worker *wk, const char *name, iohw__rude_snap *snap,
                       const char **warn)
{
    atomic_store(&wk->note->call_since_ns, 0);
    atomic_store(&wk->note->call, IOHW_CALL_NONE);
    fflush(stdout);
    fflush(stderr);
    iohw__rude_after(&wk->rude, snap, name, warn);
}

static int call_supports(worker *wk, const iohw_problem *p)
{
    iohw__rude_snap snap;
    iohw_problem q = *p;
    enter_call(wk, IOHW_CALL_SUPPORTS, "supports()", &snap);
    int rc = wk->lb.table->supports(wk->lb.ctx, &q);
    leave_call(wk, "supports()", &snap, &wk->rep.warnings);
    return rc;
}

/* Layouts of each kind find_layouts offers at most (layout strings are
 * iohw_problem's char[16]). */
#define MAX_LAYOUT_CANDIDATES 16

/* Asks supports() for the problem in other layouts, most common first;
 * returns 1 and fills xl/wl with the first pair claimed, 0 when none is. */
static int find_layouts(worker *wk, const iohw_problem *p, char xl[16],
                        char wl[16])
{
    char data[MAX_LAYOUT_CANDIDATES][16], weight[MAX_LAYOUT_CANDIDATES][16];
    const int nd = iohw_adapt_data_candidates((int)p->rank, data, MAX_LAYOUT_CANDIDATES);
    const int nw = iohw_adapt_weight_candidates((int)p->rank, weight,
                                                MAX_LAYOUT_CANDIDATES);
    for (int i = 0; i < nd; i++) {
        for (int j = 0; j < nw; j++) {
            iohw_problem q = *p;
            memcpy(q.data_layout, data[i], sizeof q.data_layout);
            memcpy(q.weight_layout, weight[j], sizeof q.weight_layout);
            if (iohw_problem_validate(&q, NULL) != 0)
                continue;
            if (call_supports(wk, &q) == IOHW_OK) {
                memcpy(xl, data[i], sizeof data[i]);
                memcpy(wl, weight[j], sizeof weight[j]);
                return 1;
            }
        }
    }
    return 0;
}

/* supports(); when the backend does not claim p and adapt is set, the
 * layouts it claims instead.  1 when claimed. */
static int ask_supports(worker *wk, const iohw_problem *p, uint32_t adapt)
{
    iohw_work_reply *r = &wk->rep;
    r->call = IOHW_CALL_SUPPORTS;
    r->rc = call_supports(wk, p);
    if (r->rc == IOHW_OK)
        return 1;
    r->message = iohw_text_keep(iohw_backend_last_error(&wk->lb));
    /* Backward cases too: dy like y, dx like x, dw like w (judge/adapt.h). */
    if (r->rc == IOHW_UNSUPPORTED && adapt)
        r->adapted = find_layouts(wk, p, r->xl, r->wl);
    return 0;
}

/* --- the tensors ---------------------------------------------------------- */

/* The verifier's memfd mapped inside a PROT_NONE reservation: each piece's
 * section between guard pages, every input (x, w, bias, requant, dy)
 * read-only. */
typedef struct mapped {
    unsigned char *res;
    size_t res_len;
    unsigned char *data[IOHW_REGION_COUNT];
    size_t len[IOHW_REGION_COUNT];
} mapped;

static int piece_ok(const iohw_work_piece *pc, size_t page)
{
    return pc->section_off % page == 0 && pc->section_len % page == 0 &&
           pc->data_off >= pc->section_off && pc->data_len <= pc->section_len &&
           pc->data_off + pc->data_len == pc->section_off + pc->section_len;
}

static int map_pieces(worker *wk, int memfd, const iohw_work_piece pc[],
                      mapped *m)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    memset(m, 0, sizeof *m);
    for (int k = 0; k < IOHW_REGION_COUNT; k++) {
        if (pc[k].section_len > SIZE_MAX / 4 || !piece_ok(&pc[k], page)) {
            errno = EINVAL;
            return -1;
        }
        m->res_len += pc[k].section_len ? (size_t)pc[k].section_len + 2 * page
                                        : 0;
    }
    void *res = mmap(NULL, m->res_len ? m->res_len : page, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res == MAP_FAILED)
        return -1;
    m->res = res;
    unsigned char *at = m->res;
    for (int k = 0; k < IOHW_REGION_COUNT; k++) {
        if (pc[k].section_len == 0)
            continue;
        int prot = k == IOHW_REGION_Y ? PROT_READ | PROT_WRITE : PROT_READ;
        void *sec = mmap(at + page, (size_t)pc[k].section_len, prot,
                         MAP_SHARED | MAP_FIXED | MAP_POPULATE, memfd,
                         (off_t)pc[k].section_off);
        if (sec == MAP_FAILED)
            return -1;
        m->data[k] = at + page + (pc[k].data_off - pc[k].section_off);
        m->len[k] = (size_t)pc[k].data_len;
        iohw_worker_region *rg = &wk->note->regions[k];
        rg->map_lo = (uintptr_t)at;
        rg->map_hi = (uintptr_t)(at + pc[k].section_len + 2 * page);
        rg->data_lo = (uintptr_t)m->data[k];
        rg->data_hi = (uintptr_t)(m->data[k] + pc[k].data_len);
        at += pc[k].section_len + 2 * page;
    }
    return 0;
}

/* The memfd's tensors mapped (the memfd closed), or r says why not. */
static int map_tensors(worker *wk, const iohw_work_piece pc[], int memfd,
                       mapped *m)
{
    memset(m, 0, sizeof *m);
    errno = 0;
    int rc = wk->msg.bad || memfd < 0 ? -1 : map_pieces(wk, memfd, pc, m);
    int e = errno;
    if (memfd >= 0)
        close(memfd);
    /* x is absent in a BWD_D case (its inputs are dy and w). */
    if (rc == 0 && m->data[IOHW_REGION_Y] != NULL &&
        (m->data[IOHW_REGION_X] != NULL || m->data[IOHW_REGION_DY] != NULL))
        return 0;
    iohw_work_reply *r = &wk->rep;
    r->rc = IOHW_WORK_HARNESS;
    r->message = iohw_text_fmt("harness: the worker cannot map "
             "the case's tensors: %s%s", e ? strerror(e) : "bad request",
             e == ENOMEM && wk->cfg->memory_limit_mb > 0
                 ? " (memory limit reached?)" : "");
    return -1;
}

/* One run() call, timed around the call only; its warnings go to warn. */
static int run_once(worker *wk, const iohw_problem *pp, const mapped *m,
                    const char **warn, double *seconds)
{
    iohw_problem p = *pp;
    iohw__rude_snap snap;
    const iohw__run_call *call = iohw__run_call_of(&p);
    const iohw__run_args a = {
        m->data[IOHW_REGION_X], m->data[IOHW_REGION_W],
        p.has_bias ? m->data[IOHW_REGION_BIAS] : NULL,
        m->data[IOHW_REGION_REQUANT], m->data[IOHW_REGION_Y],
        m->data[IOHW_REGION_DY]};
    enter_call(wk, IOHW_CALL_RUN, call->name, &snap);
    int64_t t0 = iohw_clock_ns();
    int rc = call->call(wk->lb.table, wk->lb.ctx, &p, &a);
    *seconds = (double)(iohw_clock_ns() - t0) * 1e-9;
    leave_call(wk, call->name, &snap, warn);
    return rc;
}

static void call_run(worker *wk, const iohw_problem *p, const mapped *m)
{
    iohw_work_reply *r = &wk->rep;
    const void *x = m->data[IOHW_REGION_X], *w = m->data[IOHW_REGION_W];
    const void *bias = m->data[IOHW_REGION_BIAS];
    r->call = IOHW_CALL_RUN;
    iohw__repeat rp;
    iohw__repeat_start(&rp, wk->cfg->repeat, wk->cfg->speed_reference,
                       m->data[IOHW_REGION_Y], m->len[IOHW_REGION_Y]);
    r->rc = run_once(wk, p, m, &r->warnings, &rp.t[0]);
    rp.n = 1;
    if (r->rc != IOHW_OK)
        r->message = iohw_text_keep(iohw_backend_last_error(&wk->lb));
    else
        iohw__repeat_reference(&rp, p, x, w, bias);
    /* --repeat: the same inputs again, y as it was before the first call;
     * the first call's output is the one judged. */
    while (r->rc == IOHW_OK && iohw__repeat_next(&rp)) {
        const char *warn = "";
        int rc = run_once(wk, p, m, &warn, &rp.t[rp.n]);
        iohw__repeat_merge_warnings(&r->warnings, warn);
        if (iohw__repeat_done(&rp, rc, &r->warnings) != 0)
            break;
        iohw__repeat_reference(&rp, p, x, w, bias);
    }
    iohw__repeat_finish(&rp, &r->seconds, &r->seconds_min, &r->warnings);
    r->repeat = rp.n;
    r->ref_seconds = iohw__repeat_reference_median(&rp);
    iohw__repeat_free(&rp);
}

/* A problem whose call the backend lacks (run_quant, run_bwd_data,
 * run_bwd_weights: an older table or a NULL pointer): 1, and the reply
 * says UNSUPPORTED without supports() being asked (specification sections
 * 11.4 and 13). */
static int no_run_call(worker *wk, const iohw_problem *p)
{
    const iohw__run_call *call = iohw__run_call_of(p);
    if (call->present(wk->lb.table))
        return 0;
    wk->rep.call = IOHW_CALL_SUPPORTS;
    wk->rep.rc = IOHW_UNSUPPORTED;
    wk->rep.message = iohw_text_keep(call->missing);
    return 1;
}

/* CASE (supports(), then run() when claimed) or RUN (run() only): the
 * problem, a u32 adapt flag, the four pieces; the memfd comes along and is
 * mapped (and closed) before any backend call. */
static void serve_case(worker *wk, uint32_t kind, int memfd)
{
    iohw_problem p;
    uint32_t adapt = 0;
    iohw_work_piece pc[IOHW_REGION_COUNT];
    iohw__msg_get(&wk->msg, &p, sizeof p);
    iohw__msg_get(&wk->msg, &adapt, sizeof adapt);
    iohw__msg_get(&wk->msg, pc, sizeof pc);
    mapped m;
    if (map_tensors(wk, pc, memfd, &m) == 0 && !no_run_call(wk, &p) &&
        (kind == IOHW_WORK_RUN ||
         ask_supports(wk, &p, adapt)))
        call_run(wk, &p, &m);
    memset(wk->note->regions, 0, sizeof wk->note->regions);
    if (m.res != NULL)
        munmap(m.res, m.res_len);
}

/* --- the worker's life ---------------------------------------------------- */

/* Moves fd to a high number (close-on-exec); -1 on failure. */
static int move_high(int fd)
{
    int hi = fcntl(fd, F_DUPFD_CLOEXEC, iohw__rude_high_fd());
    if (hi >= 0)
        close(fd);
    return hi;
}

/* 0..2 become /dev/null and the output pipes (non-blocking: a flood can
 * never block the worker); the socket goes high; nothing else stays open.
 * std_copy gets high duplicates of 0..2. */
static int setup_fds(int *fd, int out_fd, int err_fd, int std_copy[3])
{
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    *fd = move_high(*fd);
    std_copy[0] = null >= 0 ? move_high(null) : -1;
    std_copy[1] = move_high(out_fd);
    std_copy[2] = move_high(err_fd);
    if (*fd < 0 || std_copy[1] < 0 || std_copy[2] < 0)
        return -1;
    int top = *fd;
    for (int i = 0; i < 3; i++) {
        if (std_copy[i] > top)
            top = std_copy[i];
        if (std_copy[i] >= 0 && dup2(std_copy[i], i) != i)
            return -1;
    }
    fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
    fcntl(2, F_SETFL, fcntl(2, F_GETFL) | O_NONBLOCK);
    close_range(3, (unsigned)iohw__rude_high_fd() - 1, 0);
    close_range((unsigned)top + 1, ~0u, 0);
    for (int i = iohw__rude_high_fd(); i < top; i++)
        if (i != *fd && i != std_copy[0] && i != std_copy[1] && i != std_copy[2])
            close(i);
    return 0;
}

/* Bytes of message buffer a worker reserves before its memory limit
 * applies: more than its largest request. */
#define REQUEST_ROOM (64 * 1024)

static void load(worker *wk)
{
    /* Room for the largest request before a memory limit applies. */
    unsigned char room[4096] = {0};
    for (size_t n = 0; n < REQUEST_ROOM; n += sizeof room)
        iohw__msg_put(&wk->msg, room, sizeof room);
    iohw__msg_reset(&wk->msg);
    iohw_error err = {{0}};
    if (iohw_backend_load(wk->cfg->backend, &wk->lb, &err) == 0)
        wk->loaded = 1;
    else
        wk->load_error = iohw_text_fmt(
                 "the worker cannot load the backend: %s", err.msg);
    /* The hard limit stays, so that a program the backend starts can lift
     * its own (the exec backend holds it to resident memory). */
    if (wk->cfg->memory_limit_mb > 0)
        iohw_spawn_limit_memory(wk->cfg->memory_limit_mb, 0);
}

static void serve(worker *wk)
{
    for (;;) {
        int memfd = -1;
        if (iohw__msg_recv(wk->fd, &wk->msg, &memfd) != 1)
            return;
        uint32_t kind = 0;
        iohw__msg_get(&wk->msg, &kind, sizeof kind);
        memset(&wk->rep, 0, sizeof wk->rep);
        wk->rep.message = wk->rep.warnings = "";
        if (!wk->loaded) {
            wk->rep.rc = IOHW_WORK_NOT_LOADED;
            wk->rep.message = wk->load_error;
        } else if (kind == IOHW_WORK_CASE || kind == IOHW_WORK_RUN) {
            serve_case(wk, kind, memfd);
            memfd = -1;
        } else {
            wk->rep.rc = IOHW_WORK_HARNESS;
            wk->rep.message = iohw_text_fmt(
                     "harness: unknown request %u", (unsigned)kind);
        }
        if (memfd >= 0)
            close(memfd);
        iohw__work_reply_encode(&wk->msg, &wk->rep);
        if (iohw__msg_send(wk->fd, &wk->msg, -1) != 0)
            return;
    }
}

void iohw_worker_main(const iohw_worker_config *cfg, int fd, int out_fd,
                      int err_fd, iohw_worker_note *note)
{
    /* Die with the verifier; leave Ctrl-C to the parent. */
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    signal(SIGINT, SIG_IGN);
    signal(SIGPIPE, SIG_DFL);
    fault_note = note;
    install_fault_handlers();

    worker *wk = calloc(1, sizeof *wk);
    int std_copy[3];
    if (wk == NULL || setup_fds(&fd, out_fd, err_fd, std_copy) != 0)
        iohw__exit_child(IOHW__EXIT_CHILD_SETUP);
    wk->cfg = cfg;
    wk->note = note;
    wk->fd = fd;
    load(wk);
    iohw__rude_capture(&wk->rude, std_copy);
    serve(wk);
    if (wk->loaded)
        iohw_backend_unload(&wk->lb);
    iohw__exit_child(0);
}
