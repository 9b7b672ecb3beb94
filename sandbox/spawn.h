/*
 * sandbox/spawn.h - the child processes of the tool: how a forked child
 * exits, and whether its memory limit can be enforced.
 */
#ifndef IOHW_SPAWN_H
#define IOHW_SPAWN_H

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

#endif
