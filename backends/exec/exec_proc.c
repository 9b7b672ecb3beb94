/*
 * backends/exec/exec_proc.c - the external program: its command line and
 * one run of it.
 *
 * The command is split at blanks, with no quoting and no shell, and started
 * with fork + execvp (PATH is searched for a bare name).  The child reads
 * /dev/null, writes stdout and stderr into one pipe whose first HEAD_MAX
 * and last TAIL_MAX bytes are kept for the error message, and dies with its parent
 * (PR_SET_PDEATHSIG), so a harness worker killed for a timeout takes its
 * program along.
 */
#include "backends/exec/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define HEAD_MAX EXEC_OUTPUT_HEAD
#define TAIL_MAX EXEC_OUTPUT_TAIL

int iohw__exec_cmd_parse(const char *text, exec_cmd *cmd, char **msg)
{
    memset(cmd, 0, sizeof *cmd);
    if (text == NULL)
        return iohw__exec_say(msg, "IOHW_EXEC_COMMAND is not set");
    cmd->text = strdup(text);
    if (cmd->text == NULL)
        return iohw__exec_say(msg, "out of memory");

    /* Words separated by blanks, in place. */
    char *s = cmd->text;
    while (*s != '\0') {
        while (*s == ' ' || *s == '\t' || *s == '\n')
            *s++ = '\0';
        if (*s == '\0')
            break;
        if (cmd->argc == EXEC_MAX_WORDS) {
            iohw__exec_cmd_free(cmd);
            return iohw__exec_say(msg, "IOHW_EXEC_COMMAND has more than %d "
                                  "words", EXEC_MAX_WORDS);
        }
        cmd->argv[cmd->argc++] = s;
        while (*s != '\0' && *s != ' ' && *s != '\t' && *s != '\n')
            s++;
    }
    if (cmd->argc == 0) {
        iohw__exec_cmd_free(cmd);
        return iohw__exec_say(msg, "IOHW_EXEC_COMMAND is empty");
    }
    return 0;
}

void iohw__exec_cmd_free(exec_cmd *cmd)
{
    free(cmd->text);
    memset(cmd, 0, sizeof *cmd);
}

/* The child: never returns.  in < 0 reads /dev/null. */
static void child(const exec_cmd *cmd, const char *const *extra, const int fds[3],
                  pid_t parent)
{
    char *argv[EXEC_MAX_WORDS + 4];
    int n = 0;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    for (int i = 0; i < cmd->argc; i++)
        argv[n++] = cmd->argv[i];
    for (int i = 0; extra[i] != NULL && n < EXEC_MAX_WORDS + 3; i++)
        argv[n++] = (char *)(uintptr_t)extra[i];
    argv[n] = NULL;

    int in = fds[0] >= 0 ? fds[0] : open("/dev/null", O_RDONLY);
    if (in < 0 || dup2(in, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(fds[2], 2) < 0)
        _exit(127);
    signal(SIGPIPE, SIG_DFL);
    /* Programs are held to resident memory (iohw__exec_watch), not to the
     * address space they reserve (V8 reserves ~10 GiB per wasm memory). */
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != as.rlim_max) {
        as.rlim_cur = as.rlim_max;
        setrlimit(RLIMIT_AS, &as);
    }
    execvp(argv[0], argv);
    dprintf(2, "cannot execute %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

pid_t iohw__exec_fork(const exec_cmd *cmd, const char *const *extra,
                      const int fds[3])
{
    const pid_t parent = getpid();
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid == 0)
        child(cmd, extra, fds, parent);
    return pid;
}

/* Makes text[0..len) one printable line: trailing blanks dropped, newlines
 * turned into '|', other control characters into spaces. */
static void one_line(char *text, size_t len)
{
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
        len--;
    text[len] = '\0';
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n')
            text[i] = '|';
        else if (ch < 0x20 || ch == 0x7f)
            text[i] = ' ';
    }
}

/* Appends g bytes to the window of the last TAIL_MAX bytes in tail. */
static void keep_tail(char *tail, size_t *len, const char *buf, size_t g)
{
    if (g >= TAIL_MAX) {
        memcpy(tail, buf + g - TAIL_MAX, TAIL_MAX);
        *len = TAIL_MAX;
        return;
    }
    size_t keep = *len + g > TAIL_MAX ? TAIL_MAX - g : *len;
    memmove(tail, tail + *len - keep, keep);
    memcpy(tail + keep, buf, g);
    *len = keep + g;
}

int64_t iohw__exec_memory_limit(void)
{
    const char *env = getenv("IOHW_EXEC_MEMORY_LIMIT_MB");
    if (env != NULL && env[0] != '\0')
        return (int64_t)strtoll(env, NULL, 10) << 20;
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY)
        return 0;
    return (int64_t)as.rlim_cur;
}

/* Resident bytes of pid (VmRSS), or -1. */
static int64_t rss_of(pid_t pid)
{
    char path[64], line[128];
    long long kb = -1;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmRSS: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb < 0 ? -1 : (int64_t)kb << 10;
}

int iohw__exec_wait_readable(int fd, exec_watch *w)
{
    struct pollfd pf = {fd, POLLIN, 0};
    for (;;) {
        int k = poll(&pf, 1, w != NULL && w->limit > 0 ? EXEC_WATCH_MS : -1);
        if (k > 0)
            return 0;
        if (k < 0 && errno != EINTR)
            return -1;
        if (w == NULL || w->limit <= 0 || w->pid <= 0)
            continue;
        int64_t rss = rss_of(w->pid);
        if (rss > w->limit) {
            kill(w->pid, SIGKILL);
            w->over = rss;
            return 0;  /* its end of file follows */
        }
    }
}

void iohw__exec_watch_text(const exec_watch *w, char *out, size_t n)
{
    if (w->over <= 0)
        snprintf(out, n, "%s", "");
    else
        snprintf(out, n, " by the exec backend: its resident memory reached "
                 "%lld MiB, over the limit of %lld MiB (--memory-limit, or "
                 "IOHW_EXEC_MEMORY_LIMIT_MB)", (long long)(w->over >> 20),
                 (long long)(w->limit >> 20));
}

/* Reads the pipe to its end, keeping its first HEAD_MAX bytes in head (the
 * reason a program gives is usually at the top; head has room for
 * HEAD_MAX + TAIL_MAX + 1) and the last TAIL_MAX of the rest in tail, each
 * NUL-terminated on one line; *skipped is the number of bytes between them.
 * An output that fits in both is all in head. */
static void drain(int fd, char *head, char *tail, size_t *skipped,
                  char *cap, size_t ncap, exec_watch *w)
{
    char buf[4096];
    size_t hlen = 0, tlen = 0, total = 0, clen = 0;
    for (;;) {
        if (iohw__exec_wait_readable(fd, w) != 0)
            break;
        ssize_t got = read(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        size_t g = (size_t)got, h = g < HEAD_MAX - hlen ? g : HEAD_MAX - hlen;
        memcpy(head + hlen, buf, h);
        hlen += h;
        if (g > h)
            keep_tail(tail, &tlen, buf + h, g - h);
        total += g;
        if (cap != NULL && clen + 1 < ncap) {
            size_t c = g < ncap - 1 - clen ? g : ncap - 1 - clen;
            memcpy(cap + clen, buf, c);
            clen += c;
        }
    }
    if (cap != NULL && ncap > 0)
        cap[clen] = '\0';
    *skipped = total - hlen - tlen;
    if (*skipped == 0) {  /* all of it: one text in head */
        memcpy(head + hlen, tail, tlen);
        hlen += tlen;
        tlen = 0;
    }
    one_line(head, hlen);
    one_line(tail, tlen);
}

/* The program's output for a message: all of it when it fits, else its
 * first and its last bytes; NULL when memory runs out. */
static char *describe_output(const char *head, const char *tail,
                             size_t skipped)
{
    if (head[0] == '\0' && tail[0] == '\0')
        return iohw__exec_fmt("%s", "");
    if (tail[0] == '\0' && skipped == 0)
        return iohw__exec_fmt("; its output: %s", head);
    return iohw__exec_fmt("; its output begins: %s [... %zu bytes ...] and "
                          "ends: %s", head, skipped, tail);
}

char *iohw__exec_output_text(int fd)
{
    char *head = malloc(HEAD_MAX + TAIL_MAX + 1), *tail = malloc(TAIL_MAX + 1);
    char *text = NULL;
    size_t skipped = 0;
    if (head != NULL && tail != NULL) {
        drain(fd, head, tail, &skipped, NULL, 0, NULL);
        text = describe_output(head, tail, skipped);
    }
    free(head);
    free(tail);
    return text;
}

void iohw__exec_how(int status, char *how, size_t n)
{
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        snprintf(how, n, "could not be executed or exited with status 127");
    else if (WIFEXITED(status))
        snprintf(how, n, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(how, n, "was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(how, n, "ended with wait status %d", status);
}

/* The parent's side of a run: its output, then its end. */
static int finish(const exec_cmd *cmd, pid_t pid, int fd, char *captured,
                  size_t ncap, int *status, int *killed, char **msg)
{
    char *head = malloc(HEAD_MAX + TAIL_MAX + 1), *tail = malloc(TAIL_MAX + 1);
    char how[96], why[200];
    size_t skipped = 0;
    int st = 0, rc = -1;
    exec_watch w = {pid, iohw__exec_memory_limit(), 0};
    if (captured != NULL && ncap > 0)
        captured[0] = '\0';
    if (head != NULL && tail != NULL)
        drain(fd, head, tail, &skipped, captured, ncap, &w);
    close(fd);
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            iohw__exec_say(msg, "waitpid: %s", strerror(errno));
            goto done;
        }
    }
    if (status != NULL)
        *status = st;
    if (killed != NULL)
        *killed = w.over > 0;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        rc = 0;
        goto done;
    }
    iohw__exec_how(st, how, sizeof how);
    iohw__exec_watch_text(&w, why, sizeof why);
    char *output = head != NULL && tail != NULL
                       ? describe_output(head, tail, skipped) : NULL;
    iohw__exec_say(msg, "%s %s%s%s", cmd->argv[0], how, why,
                   iohw__exec_text(output));
    free(output);
done:
    free(head);
    free(tail);
    return rc;
}

int iohw__exec_spawn(const exec_cmd *cmd, const char *const *extra,
                     char *captured, size_t ncap, int *status, int *killed,
                     char **msg)
{
    int fds[2];
    if (status != NULL)
        *status = 0;
    if (killed != NULL)
        *killed = 0;
    if (pipe2(fds, O_CLOEXEC) != 0)
        return iohw__exec_say(msg, "pipe: %s", strerror(errno));
    const int std[3] = {-1, fds[1], fds[1]};
    const pid_t pid = iohw__exec_fork(cmd, extra, std);
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return iohw__exec_say(msg, "fork: %s", strerror(e));
    }
    close(fds[1]);
    return finish(cmd, pid, fds[0], captured, ncap, status, killed, msg);
}
