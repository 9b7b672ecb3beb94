/*
 * backends/exec/exec_serve.c - protocol 2: one program, started with
 * `--serve`, answering requests (docs/EXEC_PROTOCOL.md).
 *
 * Each message, either way, is a uint32 length (little-endian) followed by
 * that many bytes of text.  Requests go into the program's stdin, replies
 * come from its stdout; its stderr goes to a file in the backend's private
 * directory, emptied before every request, so that what it said about the
 * request that failed can be quoted.  The program dies with the process
 * that started it (PR_SET_PDEATHSIG), like a protocol 1 program.
 */
#include "backends/exec/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long a program whose stdin was closed may take to leave. */
#define STOP_GRACE_MS 200

static void sleep_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Waits for the program for up to ms milliseconds, then kills it. */
static void reap(exec_server *s, int ms)
{
    int status = 0;
    for (int t = 0; s->pid > 0; t += 10) {
        pid_t k = waitpid(s->pid, &status, WNOHANG);
        if (k == s->pid || (k < 0 && errno != EINTR)) {
            s->status = status;
            s->pid = 0;
            break;
        }
        if (t >= ms) {
            kill(s->pid, SIGKILL);
            while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
                ;
            s->status = status;
            s->pid = 0;
        }
        sleep_ms(10);
    }
}

static void forget(exec_server *s)
{
    close_fd(&s->req);
    close_fd(&s->rep);
    close_fd(&s->log);
}

void iohw__exec_serve_stop(exec_server *s)
{
    close_fd(&s->req);
    reap(s, STOP_GRACE_MS);
    forget(s);
}

void iohw__exec_serve_kill(exec_server *s)
{
    close_fd(&s->req);
    if (s->pid > 0)
        kill(s->pid, SIGKILL);
    reap(s, 0);
    forget(s);
}

int iohw__exec_serve_start(exec_server *s, const exec_cmd *cmd, char **msg)
{
    int in[2], out[2];
    if (s->pid > 0)
        return 0;
    forget(s);
    s->log = open(s->log_path, O_RDWR | O_CREAT | O_TRUNC | O_APPEND |
                  O_CLOEXEC, 0600);
    if (s->log < 0)
        return iohw__exec_say(msg, "cannot create %s: %s", s->log_path,
                              strerror(errno));
    if (pipe2(in, O_CLOEXEC) != 0) {
        close_fd(&s->log);
        return iohw__exec_say(msg, "pipe: %s", strerror(errno));
    }
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        close_fd(&s->log);
        return iohw__exec_say(msg, "pipe: %s", strerror(errno));
    }
    static const char *const extra[] = {"--serve", NULL};
    const int fds[3] = {in[0], out[1], s->log};
    const pid_t pid = iohw__exec_fork(cmd, extra, fds);
    int e = errno;
    close(in[0]);
    close(out[1]);
    s->req = in[1];
    s->rep = out[0];
    if (pid < 0) {
        forget(s);
        return iohw__exec_say(msg, "fork: %s", strerror(e));
    }
    s->pid = pid;
    s->watch.pid = pid;
    s->watch.over = 0;
    return 0;
}

/* Writes all of buf with SIGPIPE held back; 0, or -1 when the program no
 * longer reads. */
static int write_all(int fd, const void *buf, size_t n)
{
    sigset_t pipe_only, old;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    sigprocmask(SIG_BLOCK, &pipe_only, &old);
    const char *p = buf;
    int rc = 0;
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            rc = -1;
            break;
        }
        p += k;
        n -= (size_t)k;
    }
    if (rc != 0) {
        const struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_only, NULL, &zero) == SIGPIPE)
            ;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* Reads exactly n bytes, watching the program's memory: 1, 0 at end of
 * file, -1 after part of them. */
static int read_all(exec_server *s, void *buf, size_t n)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        if (iohw__exec_wait_readable(s->rep, &s->watch) != 0)
            return -1;
        ssize_t k = read(s->rep, p + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return got == 0 ? 0 : -1;
        got += (size_t)k;
    }
    return 1;
}

static void put_le32(unsigned char b[4], uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_le32(const unsigned char b[4])
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
           (uint32_t)b[3] << 24;
}

/* The program ended in the middle of a request: how, with its stderr. */
static int gone(exec_server *s, char **msg)
{
    char how[96], why[200], *said = NULL;
    close_fd(&s->req);
    reap(s, 1000);
    iohw__exec_how(s->status, how, sizeof how);
    iohw__exec_watch_text(&s->watch, why, sizeof why);
    if (s->log >= 0 && lseek(s->log, 0, SEEK_SET) == 0)
        said = iohw__exec_output_text(s->log);
    forget(s);
    iohw__exec_say(msg, "%s %s%s in the middle of a request%s", s->label,
                   how, why, said != NULL ? said : "");
    free(said);
    return EXEC_GONE;
}

/* "starts "hell"" for the bytes a garbage reply began with. */
static int garbage(exec_server *s, const unsigned char *got, size_t len,
                   const char *what, char **msg)
{
    char text[16];
    size_t i;
    for (i = 0; i < len && i + 1 < sizeof text; i++)
        text[i] = got[i] >= 0x20 && got[i] < 0x7f ? (char)got[i] : '.';
    text[i] = '\0';
    iohw__exec_serve_stop(s);
    iohw__exec_say(msg, "%s answered garbage: %s (it began \"%s\"); it "
                   "was stopped and a fresh one serves the next request",
                   s->label, what, text);
    return EXEC_GARBAGE;
}

int iohw__exec_serve_ask(exec_server *s, const exec_cmd *cmd,
                         const char *request, char *reply, size_t n,
                         char **msg)
{
    int status;
    /* One that left after its last reply is replaced quietly. */
    if (s->pid > 0 && waitpid(s->pid, &status, WNOHANG) == s->pid) {
        s->pid = 0;
        forget(s);
    }
    if (iohw__exec_serve_start(s, cmd, msg) != 0)
        return EXEC_NOSTART;
    s->watch.limit = iohw__exec_memory_limit();

    /* The request. */
    const size_t len = strlen(request);
    unsigned char head[4];
    put_le32(head, (uint32_t)len);
    if (write_all(s->req, head, 4) != 0 || write_all(s->req, request, len) != 0)
        return gone(s, msg);

    /* The reply. */
    if (read_all(s, head, 4) != 1)
        return gone(s, msg);
    const uint32_t want = get_le32(head);
    if (want > EXEC_MSG_MAX || want >= n) {
        char what[96];
        snprintf(what, sizeof what, "a reply of %lu bytes, more than the %d "
                 "allowed", (unsigned long)want,
                 n - 1 < EXEC_MSG_MAX ? (int)(n - 1) : EXEC_MSG_MAX);
        return garbage(s, head, 4, what, msg);
    }
    if (want > 0 && read_all(s, reply, want) != 1)
        return gone(s, msg);
    reply[want] = '\0';
    if (strlen(reply) != want)
        return garbage(s, (const unsigned char *)reply, want,
                       "a reply with a NUL byte", msg);
    /* Its stderr from here on is the next request's.  (Emptied after a
     * reply, not before a request: what a program says while it starts and
     * dies before its first reply is kept for that request's message.) */
    if (ftruncate(s->log, 0) != 0)
        return iohw__exec_say(msg, "%s: %s", s->log_path, strerror(errno)),
               EXEC_NOSTART;
    return EXEC_REPLY;
}
