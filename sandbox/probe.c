/*
 * sandbox/probe.c - supports() asked in a child process (see probe.h).
 *
 * Protocol over a socketpair: the child loads the backend and sends a
 * uint32 (1 loaded, 0 not) followed by strings (each a uint32 length and
 * its bytes): the backend's name and version, or the loader's message;
 * then, for every iohw_problem it reads whole, it sends
 * supports()'s int32 status.  End of file on its side unloads and exits.
 */
#include "sandbox/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oracle/quant_problem.h"
#include "sandbox/loader.h"
#include "sandbox/pipe.h"
#include "sandbox/run_call.h"
#include "sandbox/spawn.h"
#include "sandbox/worker.h"

/* Sends n bytes, never raising SIGPIPE. */
static int send_full(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* A string as a uint32 length and its bytes. */
static int send_str(int fd, const char *text)
{
    uint32_t len = (uint32_t)strlen(text);
    return send_full(fd, &len, sizeof len) != 0 || send_full(fd, text, len) != 0 ? -1 : 0;
}

/* A string of at most IOHW_PROBE_TEXT_MAX bytes into *out (malloc'd);
 * 0, 1 when the child announced a longer one, -1 when the socket failed. */
static int recv_str(int fd, char **out)
{
    uint32_t len = 0;
    free(*out);
    *out = NULL;
    if (iohw__read_full(fd, &len, sizeof len) != 1)
        return -1;
    if (len > IOHW_PROBE_TEXT_MAX)
        return 1;
    if ((*out = malloc((size_t)len + 1)) == NULL
        || (len > 0 && iohw__read_full(fd, *out, len) != 1))
        return -1;
    (*out)[len] = '\0';
    return 0;
}

/* Frees the strings (the backend's too). */
static void free_strings(iohw_probe *pr)
{
    free(pr->backend);
    free(pr->name);
    free(pr->version);
    pr->backend = pr->name = pr->version = NULL;
}

static int child(void *arg, const int *fds)
{
    const char *backend = arg;
    const int fd = fds[0];
    iohw_loaded_backend lb;
    iohw_error err = {{0}};
    uint32_t ok = iohw_backend_load(backend, &lb, &err) == 0;
    if (send_full(fd, &ok, sizeof ok) != 0)
        iohw__exit_child(1);
    if (!ok) {
        send_str(fd, err.msg);
        iohw__exit_child(0);
    }
    if (send_str(fd, lb.table->name ? lb.table->name : "?") != 0
        || send_str(fd, lb.table->version ? lb.table->version : "?") != 0)
        iohw__exit_child(1);
    iohw_problem p;
    while (iohw__read_full(fd, &p, sizeof p) == 1) {
        /* As `iohw run` does: no run_quant, no quantized problem. */
        int32_t status = !iohw__run_call_of(&p)->present(lb.table)
                             ? IOHW_UNSUPPORTED : lb.table->supports(lb.ctx, &p);
        if (send_full(fd, &status, sizeof status) != 0)
            break;
    }
    iohw_backend_unload(&lb);
    return 0;
}

/* Waits until fd is readable; 0, or -1 after IOHW_PROBE_TIMEOUT. */
static int wait_readable(int fd)
{
    struct pollfd pf = {fd, POLLIN, 0};
    int left = IOHW_PROBE_TIMEOUT * 1000;
    for (;;) {
        int k = poll(&pf, 1, left);
        if (k > 0)
            return 0;
        if (k == 0 || errno != EINTR)
            return -1;
    }
}

/* Stops the child; how it ended into how[n]. */
static void kill_child(iohw_probe *pr, char *how, int n)
{
    int status = 0;
    how[0] = '\0';
    if (pr->pid > 0) {
        iohw_spawn_kill(pr->pid, 0);
        status = iohw_spawn_reap(pr->pid);
        iohw_worker_death_message(status, NULL, how, n);
        pr->pid = 0;
    }
    if (pr->fd >= 0)
        close(pr->fd);
    pr->fd = -1;
}

/* Stops the child after a supports() call went wrong. */
static int fail(iohw_probe *pr, const char *what, iohw_error *err)
{
    char how[256];
    kill_child(pr, how, (int)sizeof how);
    return iohw_error_set(err, "backend '%s': the process asking supports() %s%s%s",
                          pr->backend, what, how[0] ? ": it " : "", how);
}

int iohw_probe_start(const char *backend, iohw_probe *pr, iohw_error *err)
{
    memset(pr, 0, sizeof *pr);
    pr->fd = -1;
    if (backend == NULL || backend[0] == '\0')
        return iohw_error_set(err, "no backend given (--backend LIB.so)");
    if ((pr->backend = strdup(backend)) == NULL)
        return iohw_error_set(err, "backend '%s': out of memory", backend);
    iohw_spawn sp = {.nends = 1, .ends = {IOHW_SPAWN_SOCKET}, .cloexec = 1,
                     .quiet = 1};
    if (iohw_spawn_start(&sp, child, (void *)backend) != 0) {
        iohw_error_set(err, "backend '%s': %s: %s", backend, sp.failed,
                       strerror(errno));
        return free_strings(pr), -1;
    }
    pr->pid = sp.pid;
    pr->fd = sp.fd[0];

    uint32_t ok = 0;
    char *text = NULL;
    int rc = -1;
    if (wait_readable(pr->fd) == 0 && iohw__read_full(pr->fd, &ok, sizeof ok) == 1)
        rc = !ok ? recv_str(pr->fd, &text)
             : (rc = recv_str(pr->fd, &pr->name)) != 0 ? rc
                                                      : recv_str(pr->fd, &pr->version);
    if (rc != 0) {
        char how[256];
        kill_child(pr, how, (int)sizeof how);
        free(text);
        free_strings(pr);
        return iohw_error_set(err, "cannot load backend '%s': the process loading it %s",
                              backend, rc > 0 ? "sent a name, version or message longer "
                              "than 1 MiB" : how[0] ? how : "did not answer");
    }
    if (ok)
        return 0;
    iohw_probe_stop(pr);
    iohw_error_set(err, "%s", text);
    free(text);
    return -1;
}

int iohw_probe_supports(iohw_probe *pr, const iohw_problem *p, iohw_error *err)
{
    int32_t status = 0;
    if (pr->pid <= 0)
        return iohw_error_set(err, "backend '%s': the probe is stopped", pr->backend);
    if (send_full(pr->fd, p, sizeof *p) != 0)
        return fail(pr, "stopped reading", err);
    if (wait_readable(pr->fd) != 0)
        return fail(pr, "got no answer in time (supports() hangs)", err);
    if (iohw__read_full(pr->fd, &status, sizeof status) != 1)
        return fail(pr, "died in supports()", err);
    pr->calls++;
    pr->claimed += status == IOHW_OK;
    return status == IOHW_OK;
}

void iohw_probe_stop(iohw_probe *pr)
{
    if (pr->fd >= 0)
        close(pr->fd);
    pr->fd = -1;
    /* The child unloads the backend and exits; one whose fini hangs is
     * killed after IOHW_PROBE_TIMEOUT. */
    if (pr->pid > 0)
        iohw_spawn_wait(pr->pid, IOHW_PROBE_TIMEOUT);
    pr->pid = 0;
    free_strings(pr);
}
