/*
 * sandbox/spawn.c - the child processes of the tool (spawn.h).
 */
#include "sandbox/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oracle/clock.h"

/* How often iohw_spawn_wait looks at the child. */
#define WAIT_TICK_US 10000

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
#if defined(__SANITIZE_ADDRESS__)
    return 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return 0;
#else
    return 1;
#endif
#else
    return 1;
#endif
}

void iohw_spawn_limit_memory(int64_t mb, int hard)
{
    if (!iohw_run_memory_limit_works())
        return;
    struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
    getrlimit(RLIMIT_AS, &rl);
    rl.rlim_cur = (rlim_t)mb << 20;
    if (hard)
        rl.rlim_max = rl.rlim_cur;
    else if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
        rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_AS, &rl);
}

/* --- the ends -------------------------------------------------------------- */

static void close_ends(int (*pair)[2], int n)
{
    int e = errno;
    for (int i = 0; i < n; i++)
        close(pair[i][0]), close(pair[i][1]);
    errno = e;
}

/* Makes one end as pair[0] (the parent's) and pair[1] (the child's). */
static int make_end(const iohw_spawn *sp, iohw_spawn_end end, int pair[2])
{
    const int flags = sp->cloexec ? O_CLOEXEC : 0;
    int fds[2];
    if (end == IOHW_SPAWN_SOCKET) {
        if (socketpair(AF_UNIX, SOCK_STREAM | flags, 0, fds) != 0)
            return -1;
        pair[0] = fds[0], pair[1] = fds[1];
        return 0;
    }
    if (pipe2(fds, flags) != 0)
        return -1;
    if (end == IOHW_SPAWN_TO_CHILD) {
        pair[0] = fds[1], pair[1] = fds[0];
        return 0;
    }
    pair[0] = fds[0], pair[1] = fds[1];
    if (sp->pipe_room > 0)
        fcntl(pair[1], F_SETPIPE_SZ, sp->pipe_room);
    return 0;
}

/* --- the child ----------------------------------------------------------- */

static void run_child(const iohw_spawn *sp, int (*pair)[2], iohw_spawn_fn fn,
                      void *arg)
{
    int fd[IOHW_SPAWN_ENDS_MAX];
    if (sp->quiet) {
        /* What the child prints stays out of iohw's output. */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 1);
    }
    for (int i = 0; i < sp->nends; i++) {
        close(pair[i][0]);
        fd[i] = pair[i][1];
    }
    iohw__exit_child(fn(arg, fd));
}

int iohw_spawn_start(iohw_spawn *sp, iohw_spawn_fn fn, void *arg)
{
    int pair[IOHW_SPAWN_ENDS_MAX][2];
    sp->pid = 0;
    sp->failed = NULL;
    for (int i = 0; i < sp->nends; i++) {
        if (make_end(sp, sp->ends[i], pair[i]) != 0) {
            sp->failed = sp->ends[i] == IOHW_SPAWN_SOCKET ? "socketpair" : "pipe";
            close_ends(pair, i);
            return -1;
        }
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        sp->failed = "fork";
        close_ends(pair, sp->nends);
        return -1;
    }
    if (pid == 0)
        run_child(sp, pair, fn, arg);
    if (sp->own_group)
        setpgid(pid, pid);   /* the child may do so too: no race */
    for (int i = 0; i < sp->nends; i++) {
        close(pair[i][1]);
        sp->fd[i] = pair[i][0];
    }
    sp->pid = pid;
    return 0;
}

/* --- waiting ------------------------------------------------------------- */

void iohw_spawn_kill(pid_t pid, int group)
{
    if (group)
        kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
}

int iohw_spawn_reap(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

int iohw_spawn_wait(pid_t pid, double seconds)
{
    const double start = iohw_clock_s();
    int status = 0, killed = 0;
    for (;;) {
        pid_t k = waitpid(pid, &status, WNOHANG);
        if (k == pid || (k < 0 && errno != EINTR))
            return status;
        if (!killed && iohw_clock_s() - start >= seconds)
            iohw_spawn_kill(pid, 0), killed = 1;
        usleep(WAIT_TICK_US);
    }
}
