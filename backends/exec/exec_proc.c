/*
 * backends/exec/exec_proc.c - the external program: its command line and
 * one run of it.
 *
 * The command is split at blanks, with no quoting and no shell, and started
 * with fork + execvp (PATH is searched for a bare name).  The child reads
 * /dev/null, writes stdout and stderr into one pipe whose last TAIL_MAX
 * bytes are kept for the error message, and dies with its parent
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
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define TAIL_MAX 480

int iohw__exec_cmd_parse(const char *text, exec_cmd *cmd, iohw_error *err)
{
    memset(cmd, 0, sizeof *cmd);
    if (text == NULL)
        return iohw_error_set(err, "IOHW_EXEC_COMMAND is not set");
    cmd->text = strdup(text);
    if (cmd->text == NULL)
        return iohw_error_set(err, "out of memory");

    /* Words separated by blanks, in place. */
    char *s = cmd->text;
    while (*s != '\0') {
        while (*s == ' ' || *s == '\t' || *s == '\n')
            *s++ = '\0';
        if (*s == '\0')
            break;
        if (cmd->argc == EXEC_MAX_WORDS) {
            iohw__exec_cmd_free(cmd);
            return iohw_error_set(err, "IOHW_EXEC_COMMAND has more than %d "
                                  "words", EXEC_MAX_WORDS);
        }
        cmd->argv[cmd->argc++] = s;
        while (*s != '\0' && *s != ' ' && *s != '\t' && *s != '\n')
            s++;
    }
    if (cmd->argc == 0) {
        iohw__exec_cmd_free(cmd);
        return iohw_error_set(err, "IOHW_EXEC_COMMAND is empty");
    }
    return 0;
}

void iohw__exec_cmd_free(exec_cmd *cmd)
{
    free(cmd->text);
    memset(cmd, 0, sizeof *cmd);
}

/* The child: never returns. */
static void child(const exec_cmd *cmd, const char *const *extra, int out,
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

    int in = open("/dev/null", O_RDONLY);
    if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
        _exit(127);
    execvp(argv[0], argv);
    dprintf(2, "cannot execute %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Reads the pipe to its end, keeping the last TAIL_MAX bytes in tail
 * (NUL-terminated, control characters turned into spaces or '|'). */
static void drain(int fd, char *tail)
{
    char buf[4096];
    size_t len = 0;
    for (;;) {
        ssize_t got = read(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        size_t g = (size_t)got;
        if (g >= TAIL_MAX) {
            memcpy(tail, buf + g - TAIL_MAX, TAIL_MAX);
            len = TAIL_MAX;
        } else {
            size_t keep = len + g > TAIL_MAX ? TAIL_MAX - g : len;
            memmove(tail, tail + len - keep, keep);
            memcpy(tail + keep, buf, g);
            len = keep + g;
        }
    }
    while (len > 0 && (tail[len - 1] == '\n' || tail[len - 1] == ' '))
        len--;
    tail[len] = '\0';
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)tail[i];
        if (ch == '\n')
            tail[i] = '|';
        else if (ch < 0x20 || ch == 0x7f)
            tail[i] = ' ';
    }
}

int iohw__exec_spawn(const exec_cmd *cmd, const char *const *extra,
                     iohw_error *err)
{
    char tail[TAIL_MAX + 1];
    int fds[2];
    int status = 0;

    if (pipe2(fds, O_CLOEXEC) != 0)
        return iohw_error_set(err, "pipe: %s", strerror(errno));
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return iohw_error_set(err, "fork: %s", strerror(e));
    }
    if (pid == 0)
        child(cmd, extra, fds[1], parent);

    /* The parent: its output, then its end. */
    close(fds[1]);
    drain(fds[0], tail);
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return iohw_error_set(err, "waitpid: %s", strerror(errno));
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;

    char how[96];
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        snprintf(how, sizeof how, "could not be executed or exited with "
                 "status 127");
    else if (WIFEXITED(status))
        snprintf(how, sizeof how, "exited with status %d",
                 WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "was killed by signal %d (%s)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(how, sizeof how, "ended with wait status %d", status);
    return iohw_error_set(err, "%s %s%s%s", cmd->argv[0], how,
                          tail[0] != '\0' ? "; its output ends: " : "", tail);
}
