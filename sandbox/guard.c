/*
 * sandbox/guard.c - untrusted work in a child with a time limit and a
 * memory limit (see guard.h).
 */
#include "sandbox/guard.h"

#include "sandbox/spawn.h"
#include "sandbox/test_hook.h"
#include "oracle/clock.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What a child may send back (the listing of a file of a million cases
 * fits many times over). */
#define OUTPUT_MAX ((size_t)1 << 28)
/* How often the parent looks at the child's clock and memory. */
#define TICK_MS 10
/* The limits of reading one case file (guard.h): the time grows with the
 * file's size up to the cap. */
#define READ_BASE_S 5.0
#define READ_S_PER_MIB 1.0
#define READ_TIMEOUT_S 60.0
#define READ_MEMORY_MB 4096
/* The address-space bound of a child: twice its memory limit plus this
 * much, room for the mappings that are not resident. */
#define ADDRESS_SPACE_SLACK_MB 1024
/* A child killed by a signal after its resident memory reached this share
 * of the limit ran out of memory; below it, it crashed. */
#define NEAR_LIMIT_PERCENT 90
/* Bytes taken from the child's pipe per read, and the first capacity of
 * the output buffer. */
#define READ_CHUNK 65536

double iohw_guard_read_seconds(int64_t bytes)
{
    const int64_t mib = bytes > 0 ? bytes >> 20 : 0;
    const double s = READ_BASE_S + READ_S_PER_MIB * (double)mib;
    return s < READ_TIMEOUT_S ? s : READ_TIMEOUT_S;
}

/* The bytes of a file, or of the files in a directory (not below); -1 when
 * path cannot be read. */
static int64_t path_bytes(const char *path)
{
    struct stat st;
    if (path == NULL || stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return (int64_t)st.st_size;
    DIR *d = opendir(path);
    if (d == NULL)
        return -1;
    int64_t total = 0;
    char sub[4096];
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (stat(sub, &st) == 0 && S_ISREG(st.st_mode))
            total += (int64_t)st.st_size;
    }
    closedir(d);
    return total;
}

iohw_guard_limits iohw_guard_read_limits(const char *path)
{
    const int64_t bytes = path_bytes(path);
    iohw_guard_limits l = {bytes < 0 ? READ_TIMEOUT_S : iohw_guard_read_seconds(bytes),
                           READ_MEMORY_MB};
    const char *t = getenv("IOHW_READ_TIMEOUT");
    if (t != NULL) {
        char *end;
        double v = strtod(t, &end);
        if (end != t && *end == '\0' && v > 0)
            l.seconds = v;
    }
    return l;
}

/* Resident memory of a process in KB, or -1. */
static int64_t resident_kb(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    long long size, rss;
    int n = fscanf(f, "%lld %lld", &size, &rss);
    fclose(f);
    return n == 2 ? (int64_t)rss * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

/* What the child needs. */
typedef struct child_args {
    iohw_guard_fn fn;
    void *arg;
    const char *path;
    const iohw_guard_limits *lim;
} child_args;

static int run_child(void *arg, const int *fd)
{
    const child_args *a = arg;
    /* The limit itself is watched on resident memory; the address space
     * gets a looser bound, so one huge allocation fails at once. */
    if (a->lim != NULL && a->lim->memory_mb > 0)
        iohw_spawn_limit_memory(2 * a->lim->memory_mb + ADDRESS_SPACE_SLACK_MB, 1);
    IOHW_TEST_HOOK("read", a->path);
    int code = a->fn(a->arg, fd[0]);
    close(fd[0]);
    fflush(NULL);
    return code;
}

/* Appends what is readable on fd to out; 1 at end of file, 0 otherwise,
 * -1 when the output grows past OUTPUT_MAX or memory runs out. */
static int drain(int fd, iohw_guard_outcome *out, size_t *cap)
{
    char buf[READ_CHUNK];
    ssize_t k = read(fd, buf, sizeof buf);
    if (k == 0)
        return 1;
    if (k < 0)
        return errno == EINTR || errno == EAGAIN ? 0 : 1;
    if (out->output_len + (size_t)k + 1 > *cap) {
        size_t ncap = *cap ? *cap * 2 : READ_CHUNK;
        while (ncap < out->output_len + (size_t)k + 1)
            ncap *= 2;
        if (ncap > OUTPUT_MAX)
            return -1;
        char *n = realloc(out->output, ncap);
        if (n == NULL)
            return -1;
        out->output = n, *cap = ncap;
    }
    memcpy(out->output + out->output_len, buf, (size_t)k);
    out->output_len += (size_t)k;
    out->output[out->output_len] = '\0';
    return 0;
}

/* Watches the child until it ends; kills it at a limit. */
static void watch(pid_t pid, int fd, const iohw_guard_limits *lim,
                  iohw_guard_outcome *out)
{
    const double start = iohw_clock_s();
    const double seconds = lim != NULL ? lim->seconds : 0;
    const int64_t memory_kb = lim != NULL && lim->memory_mb > 0 ? lim->memory_mb << 10 : 0;
    size_t cap = 0;
    int open = 1, status = 0, killed = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    for (;;) {
        if (open) {
            struct pollfd p = {fd, POLLIN, 0};
            if (poll(&p, 1, TICK_MS) > 0) {
                int d = drain(fd, out, &cap);
                if (d != 0)
                    open = 0;
                if (d < 0 && !killed)
                    iohw_spawn_kill(pid, 0), killed = 1, out->end = IOHW_GUARD_MEMORY;
            }
        } else {
            struct timespec ts = {0, TICK_MS * 1000000L};
            nanosleep(&ts, NULL);
        }
        pid_t w = wait4(pid, &status, WNOHANG, &ru);
        if (w == pid)
            break;
        if (killed)
            continue;
        if (seconds > 0 && iohw_clock_s() - start > seconds) {
            iohw_spawn_kill(pid, 0), killed = 1, out->end = IOHW_GUARD_TIMEOUT;
        } else if (memory_kb > 0 && resident_kb(pid) > memory_kb) {
            iohw_spawn_kill(pid, 0), killed = 1, out->end = IOHW_GUARD_MEMORY;
        }
    }
    /* The child is gone: what it wrote is all in the pipe. */
    while (open && !killed) {
        int d = drain(fd, out, &cap);
        if (d != 0)
            open = 0;
        if (d < 0)
            killed = 1, out->end = IOHW_GUARD_MEMORY;
    }
    out->seconds = iohw_clock_s() - start;
    out->peak_kb = (int64_t)ru.ru_maxrss;
    if (killed)
        return;
    if (WIFSIGNALED(status)) {
        out->signal = WTERMSIG(status);
        /* Died near the memory limit: a failed allocation it did not
         * survive (RLIMIT_AS), not a crash of its own. */
        out->end = memory_kb > 0 && out->peak_kb * 100 >= memory_kb * NEAR_LIMIT_PERCENT
                       ? IOHW_GUARD_MEMORY : IOHW_GUARD_SIGNALED;
    } else {
        out->end = IOHW_GUARD_EXITED;
        out->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
}

int iohw_guard_run(iohw_guard_fn fn, void *arg, const char *path,
                   const iohw_guard_limits *lim, iohw_guard_outcome *out,
                   iohw_error *err)
{
    memset(out, 0, sizeof *out);
    child_args a = {fn, arg, path, lim};
    iohw_spawn sp = {.nends = 1, .ends = {IOHW_SPAWN_FROM_CHILD}};
    if (iohw_spawn_start(&sp, run_child, &a) != 0)
        return iohw_error_set(err, "%s: %s: %s", path ? path : "child", sp.failed,
                              strerror(errno));
    watch(sp.pid, sp.fd[0], lim, out);
    close(sp.fd[0]);
    if (out->output == NULL && (out->output = calloc(1, 1)) == NULL)
        return iohw_error_set(err, "out of memory");
    return 0;
}

void iohw_guard_outcome_free(iohw_guard_outcome *o)
{
    if (o == NULL)
        return;
    free(o->output);
    memset(o, 0, sizeof *o);
}

int iohw_guard_ok(const iohw_guard_outcome *o)
{
    return o->end == IOHW_GUARD_EXITED && o->code == 0;
}

void iohw_guard_describe(const iohw_guard_outcome *o, const iohw_guard_limits *lim,
                         const char *path, char *buf, size_t n)
{
    switch (o->end) {
    case IOHW_GUARD_SIGNALED:
        snprintf(buf, n, "%s: reading the file crashed the HDF5 library (signal %d, "
                 "%s): the file is corrupt", path, o->signal, strsignal(o->signal));
        break;
    case IOHW_GUARD_TIMEOUT:
        snprintf(buf, n, "%s: reading the file took longer than %g s (killed): the "
                 "file is corrupt, or the HDF5 library loops on it", path,
                 lim != NULL ? lim->seconds : 0.0);
        break;
    case IOHW_GUARD_MEMORY:
        snprintf(buf, n, "%s: reading the file needed more than %lld MB (killed): the "
                 "file is corrupt, or asks for more memory than a case may use", path,
                 (long long)(lim != NULL ? lim->memory_mb : 0));
        break;
    default:
        snprintf(buf, n, "%s: reading the file crashed the HDF5 library (the reading "
                 "process exited with status %d before it finished): the file is "
                 "corrupt", path, o->code);
    }
}
