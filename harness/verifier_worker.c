/*
 * harness/verifier_worker.c - the verifier's side of its worker (see
 * verifier_internal.h): starting it, asking it, draining its output, and
 * the memfd that holds a case's tensors.
 */
#include "harness/verifier_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/run.h"
#include "harness/run_internal.h"
#include "sandbox/worker_rude.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

/* Room in each output pipe, so that a flood rarely finds it full. */
#define PIPE_ROOM (1 << 20)
/* Bytes taken from the worker's stdout or stderr pipe per read. */
#define READ_CHUNK 65536

/* --- the worker process ---------------------------------------------------- */

static int worker_child(void *arg, const int *fd)
{
    const iohw__verifier *v = arg;
    iohw_worker_main(v->cfg, fd[0], fd[1], fd[2], v->note);
}

int iohw__verifier_spawn(iohw__verifier *v)
{
    iohw_spawn sp = {.nends = 3, .cloexec = 1, .pipe_room = PIPE_ROOM,
                     .ends = {IOHW_SPAWN_SOCKET, IOHW_SPAWN_FROM_CHILD,
                              IOHW_SPAWN_FROM_CHILD}};
    memset((void *)v->note->regions, 0, sizeof v->note->regions);
    atomic_store(&v->note->call, IOHW_CALL_NONE);
    atomic_store(&v->note->call_since_ns, 0);
    v->note->signo = 0;
    v->note->addr_valid = 0;
    if (iohw_spawn_start(&sp, worker_child, v) != 0)
        return -1;
    v->w_pid = sp.pid;
    v->w_fd = sp.fd[0];
    for (int i = 0; i < 2; i++) {
        memset(&v->out[i], 0, sizeof v->out[i]);
        v->out[i].fd = sp.fd[1 + i];
        fcntl(sp.fd[1 + i], F_SETFL, fcntl(sp.fd[1 + i], F_GETFL) | O_NONBLOCK);
    }
    return 0;
}

void iohw__verifier_stop(iohw__verifier *v)
{
    if (v->w_pid == 0)
        return;
    close(v->w_fd);
    for (int i = 0; i < 2; i++)
        if (v->out[i].fd >= 0)
            close(v->out[i].fd);
    iohw_spawn_reap(v->w_pid);
    v->w_pid = 0;
}

/* --- its output ------------------------------------------------------------ */

/* Reads what is in the pipe now. */
static void drain(iohw__stream *s)
{
    char buf[READ_CHUNK];
    while (s->fd >= 0) {
        ssize_t k = read(s->fd, buf, sizeof buf);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0) {
                close(s->fd);
                s->fd = -1;
            }
            return;
        }
        s->bytes += k;
        for (ssize_t i = 0; i < k && !s->first_done; i++) {
            unsigned char ch = (unsigned char)buf[i];
            if (ch == '\n') {
                s->first_done = 1;
            } else if (s->first_len + 1 < sizeof s->first) {
                s->first[s->first_len++] = ch < 32 || ch == 127 ? '?' : (char)ch;
                s->first[s->first_len] = '\0';
            }
        }
    }
}

/* "run() wrote 4194304 bytes on stdout (first line: "...")" per stream,
 * then forgets them. */
static void report_output(iohw__verifier *v, const char *call,
                          const char **warn)
{
    static const char *const names[2] = {"stdout", "stderr"};
    for (int i = 0; i < 2; i++) {
        iohw__stream *s = &v->out[i];
        drain(s);
        if (s->bytes > 0) {
            iohw__warn_add(warn, iohw_text_fmt(
                "%s wrote %lld byte(s) on %s (first line: \"%s\")", call,
                (long long)s->bytes, names[i], s->first));
        }
        int fd = s->fd;
        memset(s, 0, sizeof *s);
        s->fd = fd;
    }
}

/* --- asking it ------------------------------------------------------------- */

/* The worker closed the socket: how it died becomes r's CRASH. */
static void worker_died(iohw__verifier *v, iohw_result *r)
{
    iohw_spawn_kill(v->w_pid, 0);   /* when it closed the socket but lives on */
    int status = iohw_spawn_reap(v->w_pid);
    v->w_pid = 0;
    v->w_dead = 1;
    close(v->w_fd);
    char msg[512];
    iohw_worker_death_message(status, v->note, msg, (int)sizeof msg);
    if (v->cfg->memory_limit_mb > 0 && iohw_run_memory_limit_works() &&
        atomic_load(&v->note->call) == IOHW_CALL_NONE) {
        size_t len = strlen(msg);
        snprintf(msg + len, sizeof msg - len, " (is --memory-limit %lld MB "
                 "too low?)", (long long)v->cfg->memory_limit_mb);
    }
    r->status = IOHW_RESULT_CRASH;
    r->message = iohw_text_keep(msg);
}

/* Waits until the socket is readable, draining the output pipes. */
static void wait_readable(iohw__verifier *v)
{
    for (;;) {
        struct pollfd pf[3] = {{v->w_fd, POLLIN, 0},
                               {v->out[0].fd, POLLIN, 0},
                               {v->out[1].fd, POLLIN, 0}};
        int k = poll(pf, 3, -1);
        if (k < 0 && errno != EINTR)
            return;
        for (int i = 0; k > 0 && i < 2; i++)
            if (pf[i + 1].revents != 0)
                drain(&v->out[i]);
        if (k > 0 && pf[0].revents != 0)
            return;
    }
}

int iohw__verifier_ask(iohw__verifier *v, int memfd, iohw_work_reply *w,
                       iohw_result *r)
{
    memset(w, 0, sizeof *w);
    w->message = w->warnings = "";
    if (v->w_pid == 0 && iohw__verifier_spawn(v) != 0) {
        r->status = IOHW_RESULT_ERROR;
        r->message = iohw_text_fmt("harness: cannot start a "
                 "worker: %s", strerror(errno));
        v->w_dead = 1;
        return -1;
    }
    if (iohw__msg_send(v->w_fd, &v->msg, memfd) == 0)
        wait_readable(v);
    int k = iohw__msg_recv(v->w_fd, &v->msg, NULL);
    int bad = k == 1 && iohw__work_reply_decode(&v->msg, w) != 0;
    report_output(v, k != 1 || bad ? "the backend"
                     : w->call == IOHW_CALL_RUN ? "run()" : "supports()",
                  &r->warnings);
    if (k != 1) {
        worker_died(v, r);
        return -1;
    }
    if (bad) {
        r->status = IOHW_RESULT_ERROR;
        r->message = iohw_text_fmt("harness: the worker sent a "
                 "malformed reply");
        iohw_spawn_kill(v->w_pid, 0);
        iohw__verifier_stop(v);
        v->w_dead = 1;
        return -1;
    }
    iohw__warn_add(&r->warnings, w->warnings);
    if (w->rc == IOHW_WORK_NOT_LOADED || w->rc == IOHW_WORK_HARNESS) {
        r->status = IOHW_RESULT_ERROR;
        r->message = w->message;
        return -1;
    }
    return 0;
}

/* --- the tensors ------------------------------------------------------------ */

static unsigned char canary_byte(size_t i)
{
    return (unsigned char)(0x3C + 7 * i);
}

/* Bytes of each region of c's tensors: the inputs of its direction
 * (forward x, w, bias, requant; BWD_D dy, w; BWD_W x, dy) and the
 * direction's output in the y region (iohw_problem_out_count elements:
 * y, dx, or dw then db; specification section 13); 0 for an absent one. */
static void region_bytes(const iohw_problem *p, size_t bytes[])
{
    const size_t es = iohw_dtype_size(p->dtype);
    memset(bytes, 0, IOHW_REGION_COUNT * sizeof bytes[0]);
    if (iohw_problem_is_backward(p)) {
        int data = p->direction == IOHW_DIR_BWD_D;
        bytes[IOHW_REGION_X] = data ? 0 : (size_t)iohw_problem_x_count(p) * es;
        bytes[IOHW_REGION_W] = data ? (size_t)iohw_problem_w_count(p) * es : 0;
        bytes[IOHW_REGION_DY] = (size_t)iohw_problem_dy_count(p) * es;
        bytes[IOHW_REGION_Y] = (size_t)iohw_problem_out_count(p) * es;
        return;
    }
    bytes[IOHW_REGION_X] = (size_t)iohw_problem_x_count(p) * es;
    bytes[IOHW_REGION_W] = (size_t)iohw_problem_w_count(p) *
                           iohw_dtype_size(iohw_problem_w_dtype(p));
    bytes[IOHW_REGION_BIAS] = (size_t)iohw_problem_bias_count(p) *
                              iohw_dtype_size(iohw_problem_bias_dtype(p));
    bytes[IOHW_REGION_Y] = (size_t)iohw_problem_y_count(p) *
                           iohw_dtype_size(iohw_problem_y_dtype(p));
    bytes[IOHW_REGION_REQUANT] = iohw_quant_requant_bytes(p);
}

/* Sections of whole pages, each tensor at the end of its own (each in its
 * own type: a quantized case's differ); the output's section always. */
static size_t plan(const iohw_case *c, iohw_work_piece pc[])
{
    size_t bytes[IOHW_REGION_COUNT];
    region_bytes(&c->p, bytes);
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t off = 0;
    for (int k = 0; k < IOHW_REGION_COUNT; k++) {
        memset(&pc[k], 0, sizeof pc[k]);
        if (k != IOHW_REGION_Y && bytes[k] == 0)
            continue;
        size_t len = bytes[k];
        size_t body = (len + page - 1) / page * page;
        if (body == 0)
            body = page;
        pc[k].section_off = off;
        pc[k].section_len = body;
        pc[k].data_off = off + body - len;
        pc[k].data_len = len;
        off += body;
    }
    return off;
}

int iohw__tensors_make(iohw__verifier *v, const iohw_case *c,
                       iohw__tensors *t, iohw_error *err)
{
    memset(t, 0, sizeof *t);
    t->es = (size_t)iohw_worker_sentinel((int)iohw_problem_y_dtype(&c->p),
                                         t->sent);
    if (t->es == 0)
        return iohw_error_set(err, "harness: unknown dtype");
    if (iohw_quant_requant_bytes(&c->p) > 0 && c->requant == NULL)
        return iohw_error_set(err, "harness: the case has no requant values");
    size_t len = plan(c, t->pc);
    if (v->memfd < 0)
        v->memfd = memfd_create("iohw-case", MFD_CLOEXEC);
    if (v->memfd < 0 || ftruncate(v->memfd, 0) != 0 ||
        ftruncate(v->memfd, (off_t)len) != 0)
        return iohw_error_set(err, "harness: cannot hold %zu bytes of tensors "
                              "in a memfd: %s", len, strerror(errno));
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, v->memfd, 0);
    if (m == MAP_FAILED)
        return iohw_error_set(err, "harness: cannot map %zu bytes of tensors: "
                              "%s", len, strerror(errno));
    t->map = m;
    t->len = len;
    const void *src[IOHW_REGION_COUNT] = {c->x, c->w, c->bias, NULL,
                                          c->requant, c->dy};
    for (int k = 0; k < IOHW_REGION_COUNT; k++) {
        if (k == IOHW_REGION_Y || t->pc[k].data_len == 0)
            continue;
        if (src[k] == NULL)
            return iohw_error_set(err, "harness: the case has no %s",
                                  k == IOHW_REGION_DY ? "dy" : "input tensor");
        memcpy(t->map + t->pc[k].data_off, src[k], t->pc[k].data_len);
    }
    const iohw_work_piece *y = &t->pc[IOHW_REGION_Y];
    for (size_t i = 0; i < y->data_len; i += t->es)
        memcpy(t->map + y->data_off + i, t->sent, t->es);
    for (size_t i = 0; y->section_off + i < y->data_off; i++)
        t->map[y->section_off + i] = canary_byte(i);
    return 0;
}

const unsigned char *iohw__tensors_y(const iohw__tensors *t)
{
    return t->map + t->pc[IOHW_REGION_Y].data_off;
}

size_t iohw__tensors_canary_damage(const iohw__tensors *t)
{
    const iohw_work_piece *y = &t->pc[IOHW_REGION_Y];
    for (size_t i = 0; y->section_off + i < y->data_off; i++)
        if (t->map[y->section_off + i] != canary_byte(i))
            return (size_t)(y->data_off - (y->section_off + i));
    return 0;
}

void iohw__tensors_free(iohw__tensors *t)
{
    if (t->map != NULL)
        munmap(t->map, t->len);
    memset(t, 0, sizeof *t);
}
