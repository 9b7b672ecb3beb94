/*
 * sandbox/spawn.h - the child processes of the tool.  Every fork() of
 * iohw is iohw_spawn_start's: it makes the pipes a child needs, forks,
 * leaves each side its own ends and runs the child's function; the parent
 * then waits (with a deadline), kills and reaps through the calls below.
 * The guarded reader, the probe, the verifiers and their workers are all
 * built on it.
 */
#ifndef IOHW_SPAWN_H
#define IOHW_SPAWN_H

#include <stdint.h>
#include <sys/types.h>

/* Exit status of a worker or verifier process that cannot set itself up
 * (no memory for its state, or its pipes cannot be arranged): 70, sysexits'
 * EX_SOFTWARE, an internal error rather than anything a backend did. */
#define IOHW__EXIT_CHILD_SETUP 70

/* _exit for a forked child; coverage builds write their counters first
 * (_exit skips gcov's exit handler). */
void iohw__exit_child(int code) __attribute__((noreturn));

/* 0 when --memory-limit cannot be enforced in this build (AddressSanitizer
 * reserves terabytes of address space, so RLIMIT_AS is not set). */
int iohw_run_memory_limit_works(void);

/* In a child: limits its address space (RLIMIT_AS) to mb megabytes; with
 * hard, the hard limit too (else the hard limit stays, so that a program
 * the child starts can lift its own, and mb is cut to it).  Nothing when
 * the limit cannot be enforced (iohw_run_memory_limit_works). */
void iohw_spawn_limit_memory(int64_t mb, int hard);

/* A channel between parent and child, one per end. */
typedef enum iohw_spawn_end {
    IOHW_SPAWN_TO_CHILD,    /* a pipe the parent writes and the child reads */
    IOHW_SPAWN_FROM_CHILD,  /* a pipe the child writes and the parent reads */
    IOHW_SPAWN_SOCKET       /* a socket pair, both ways */
} iohw_spawn_end;

#define IOHW_SPAWN_ENDS_MAX 3

typedef struct iohw_spawn {
    /* Asked by the caller. */
    int nends;
    iohw_spawn_end ends[IOHW_SPAWN_ENDS_MAX];
    int cloexec;        /* 1: every end is close-on-exec */
    int pipe_room;      /* > 0: the size of the FROM_CHILD pipes */
    int quiet;          /* 1: the child's stdout is /dev/null */
    int own_group;      /* 1: the child leads a process group of its own */
    /* Set by iohw_spawn_start. */
    pid_t pid;
    int fd[IOHW_SPAWN_ENDS_MAX];  /* the parent's ends, in the order asked */
    const char *failed;           /* "pipe", "socketpair" or "fork" */
} iohw_spawn;

/* The child's life: its ends in fd (the order asked).  What it returns
 * is the child's exit status. */
typedef int (*iohw_spawn_fn)(void *arg, const int *fd);

/* Flushes stdio, makes the ends, forks and runs fn(arg, ends) in the
 * child, which then exits (iohw__exit_child).  0 in the parent with
 * sp->pid and sp->fd set; -1 with errno and sp->failed naming the step
 * that failed (every end made is closed). */
int iohw_spawn_start(iohw_spawn *sp, iohw_spawn_fn fn, void *arg);

/* SIGKILLs pid (and, with group, its process group too). */
void iohw_spawn_kill(pid_t pid, int group);

/* Waits for pid to end; its wait status. */
int iohw_spawn_reap(pid_t pid);

/* Waits for pid to end, SIGKILLing it once seconds have passed; its wait
 * status. */
int iohw_spawn_wait(pid_t pid, double seconds);

#endif
