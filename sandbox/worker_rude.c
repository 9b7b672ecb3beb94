/*
 * sandbox/worker_rude.c - noticing and undoing what a backend call did to
 * the worker's process (see worker_rude.h).
 */
#include "sandbox/worker_rude.h"
#include "results/text.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Appends text to a "; "-separated list in warn (size n). */
static void warn_append(char *warn, size_t n, const char *text)
{
    size_t len = strlen(warn);
    if (len + 1 >= n)
        return;
    snprintf(warn + len, n - len, "%s%s", len > 0 ? "; " : "", text);
}

void iohw__warn_add(const char **warn, const char *text)
{
    *warn = iohw_text_join(*warn, "; ", text);
}

int iohw__rude_high_fd(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= 1024)
        return 1000;
    return rl.rlim_cur > 64 ? (int)rl.rlim_cur - 24 : 40;
}

/* --- the floating-point environment ------------------------------------- */

#if defined(__x86_64__) || defined(__i386__)
/* MXCSR without the sticky exception flags (bits 0..5). */
static unsigned mxcsr_of(const fenv_t *e)
{
    return e->__mxcsr & ~0x3Fu;
}

static unsigned x87_of(const fenv_t *e)
{
    return e->__control_word & 0x0F3Fu;
}

/* "FTZ, DAZ, rounding upward" for the bits of an MXCSR value. */
static void mxcsr_words(unsigned m, char *buf, size_t n)
{
    static const char *const rounding[] = {"to nearest", "downward", "upward",
                                           "toward zero"};
    buf[0] = '\0';
    if (m & 0x8000u)
        warn_append(buf, n, "FTZ");
    if (m & 0x0040u)
        warn_append(buf, n, "DAZ");
    char r[40];
    snprintf(r, sizeof r, "rounding %s", rounding[(m >> 13) & 3u]);
    warn_append(buf, n, r);
    if ((m & 0x1F80u) != 0x1F80u)
        warn_append(buf, n, "exceptions unmasked");
    /* warn_append separates with "; ": make it ", " for one clause. */
    for (char *p = buf; (p = strstr(p, "; ")) != NULL; p++)
        *p = ',';
}

static void check_fenv(const iohw__rude *r, const char *call, const char **warn)
{
    fenv_t now;
    if (fegetenv(&now) != 0)
        return;
    unsigned m0 = mxcsr_of(&r->env), m1 = mxcsr_of(&now);
    unsigned c0 = x87_of(&r->env), c1 = x87_of(&now);
    if (m0 == m1 && c0 == c1)
        return;
    char text[256], words[96] = "";
    int k = snprintf(text, sizeof text, "%s changed the floating-point "
                     "environment:", call);
    if (m0 != m1) {
        mxcsr_words(m1, words, sizeof words);
        k += snprintf(text + k, sizeof text - (size_t)k, " MXCSR 0x%x -> 0x%x "
                      "(%s)", m0, m1, words);
    }
    if (c0 != c1)
        snprintf(text + k, sizeof text - (size_t)k, "%s x87 control word "
                 "0x%x -> 0x%x", m0 != m1 ? "," : "", c0, c1);
    size_t len = strlen(text);
    snprintf(text + len, sizeof text - len, "; restored");
    iohw__warn_add(warn, text);
    fesetenv(&r->env);
}
#else
static void check_fenv(const iohw__rude *r, const char *call, const char **warn)
{
    fenv_t now;
    if (fegetenv(&now) != 0 || memcmp(&now, &r->env, sizeof now) == 0)
        return;
    char text[160];
    snprintf(text, sizeof text, "%s changed the floating-point environment; "
             "restored", call);
    iohw__warn_add(warn, text);
    fesetenv(&r->env);
}
#endif

/* --- descriptors and threads --------------------------------------------- */

static int fd_has(const iohw__fdset *s, int fd)
{
    return fd >= 0 && fd < IOHW__RUDE_FDS &&
           (s->bits[fd / 64] >> (fd % 64) & 1u);
}

/* Entries of a /proc/self directory, numbers only; -1 when unreadable.
 * With set, the descriptor numbers are recorded (minus the listing's own). */
static int list_dir(const char *path, iohw__fdset *set)
{
    DIR *d = opendir(path);
    if (d == NULL)
        return -1;
    int self = set != NULL ? dirfd(d) : -1, count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        int v = atoi(e->d_name);
        if (v == self)
            continue;
        count++;
        if (set != NULL && v < IOHW__RUDE_FDS)
            set->bits[v / 64] |= (uint64_t)1 << (v % 64);
    }
    closedir(d);
    return count;
}

static void read_fds(iohw__fdset *s)
{
    memset(s, 0, sizeof *s);
    s->count = list_dir("/proc/self/fd", s);
    s->ok = s->count >= 0;
}

/* " 3, 4, 7" for the descriptors in a but not in b. */
static void fd_diff(const iohw__fdset *a, const iohw__fdset *b, char *buf,
                    size_t n)
{
    size_t len = 0;
    int shown = 0;
    buf[0] = '\0';
    for (int fd = 0; fd < IOHW__RUDE_FDS && len + 16 < n; fd++) {
        if (!fd_has(a, fd) || fd_has(b, fd))
            continue;
        if (shown++ == 12) {
            len += (size_t)snprintf(buf + len, n - len, ", ...");
            break;
        }
        len += (size_t)snprintf(buf + len, n - len, "%s%d", shown > 1 ? ", " : "",
                                fd);
    }
}

static void check_fds(iohw__rude *r, const iohw__rude_snap *s,
                      const char *call, const char **warn)
{
    iohw__fdset now;
    read_fds(&now);
    if (!now.ok || !s->fds.ok)
        return;
    char list[128], text[256];
    fd_diff(&s->fds, &now, list, sizeof list);
    if (list[0] != '\0') {
        int reopened = 0;
        for (int fd = 0; fd < 3; fd++)
            if (fd_has(&s->fds, fd) && !fd_has(&now, fd) &&
                r->std_copy[fd] >= 0 && dup2(r->std_copy[fd], fd) == fd)
                reopened++;
        snprintf(text, sizeof text, "%s closed descriptor(s) %s, open before "
                 "the call%s", call, list, reopened ? " (0, 1, 2 reopened)" : "");
        iohw__warn_add(warn, text);
        read_fds(&now);
    }
    if (now.count > r->max_fds) {
        fd_diff(&now, &s->fds, list, sizeof list);
        snprintf(text, sizeof text, "%s left %d more descriptor(s) open than "
                 "any earlier call (%s)", call, now.count - r->max_fds,
                 list[0] ? list : "numbers above the ones checked");
        iohw__warn_add(warn, text);
        r->max_fds = now.count;
    }
}

static void check_threads(iohw__rude *r, const char *call, const char **warn)
{
    int now = list_dir("/proc/self/task", NULL);
    if (now < 0 || now <= r->max_threads)
        return;
    char text[200];
    snprintf(text, sizeof text, "%s left %d thread(s) running, %d more than "
             "any earlier call left", call, now, now - r->max_threads);
    iohw__warn_add(warn, text);
    r->max_threads = now;
}

/* --- signals ------------------------------------------------------------- */

static int skip_signal(int sig)
{
    return sig == SIGKILL || sig == SIGSTOP;
}

/* The kernel's flag for sa_restorer, which the C library sets itself. */
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

static int same_action(const struct sigaction *a, const struct sigaction *b)
{
    return a->sa_sigaction == b->sa_sigaction &&
           (a->sa_flags & ~SA_RESTORER) == (b->sa_flags & ~SA_RESTORER);
}

static void check_signals(const iohw__rude_snap *s, const char *call,
                          const char **warn)
{
    char list[160] = "";
    size_t len = 0;
    for (int sig = 1; sig < 32; sig++) {
        struct sigaction now;
        if (skip_signal(sig) || sigaction(sig, NULL, &now) != 0 ||
            same_action(&now, &s->acts[sig]))
            continue;
        sigaction(sig, &s->acts[sig], NULL);
        const char *name = sigabbrev_np(sig);
        if (len + 16 < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%sSIG%s",
                                    len ? ", " : "", name ? name : "?");
    }
    if (list[0] == '\0')
        return;
    char text[256];
    snprintf(text, sizeof text, "%s changed the disposition of %s; restored",
             call, list);
    iohw__warn_add(warn, text);
}

/* --- the interface -------------------------------------------------------- */

void iohw__rude_capture(iohw__rude *r, const int std_copy[3])
{
    memset(r, 0, sizeof *r);
    fegetenv(&r->env);
    memcpy(r->std_copy, std_copy, sizeof r->std_copy);
    iohw__fdset fds;
    read_fds(&fds);
    r->max_fds = fds.count;
    r->max_threads = list_dir("/proc/self/task", NULL);
}

void iohw__rude_before(const iohw__rude *r, iohw__rude_snap *s)
{
    fesetenv(&r->env);
    read_fds(&s->fds);
    for (int sig = 1; sig < 32; sig++)
        if (skip_signal(sig) || sigaction(sig, NULL, &s->acts[sig]) != 0)
            memset(&s->acts[sig], 0, sizeof s->acts[sig]);
}

void iohw__rude_after(iohw__rude *r, const iohw__rude_snap *s,
                      const char *call, const char **warn)
{
    check_fenv(r, call, warn);
    check_signals(s, call, warn);
    check_fds(r, s, call, warn);
    check_threads(r, call, warn);
}
