/*
 * harness/run.h - `iohw run`: enumerate cases, run each in an isolated worker
 * process against a backend, compare, diagnose, journal.
 *
 * The parent process loads the backend once to fail fast (then unloads it),
 * expands the inputs (harness/suite.h), and keeps `jobs` worker processes
 * busy (harness/worker.h).  Each worker loads the backend itself and runs one
 * case at a time with its output between guard pages and its inputs
 * read-only.  A worker that dies makes its case CRASH (the message names the
 * signal or the exit status, and what a fault address points at); a backend
 * call that outlives the timeout makes its case TIMEOUT (the worker is
 * SIGKILLed); either way a fresh worker takes over and the run goes on.
 * Results are appended to the journal as they arrive.
 */
#ifndef IOHW_RUN_H
#define IOHW_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "harness/machine.h"
#include "harness/result.h"
#include "oracle/error.h"

typedef struct iohw_run_options {
    const char *backend;        /* path of the backend shared object */
    const char *const *inputs;  /* suite directories or case files */
    int ninputs;
    const char *filter;         /* or NULL */
    int shard_index, shard_count;  /* 1/1 when not sharded */
    int jobs;                   /* worker processes; 0 = number of cores */
    double timeout;             /* seconds per backend call (supports() or
                                   run()); 0 = none */
    int64_t memory_limit_mb;    /* per worker; 0 = none (ignored under ASan,
                                   see iohw_run_memory_limit_works) */
    const char *journal;        /* append results here as they come, or NULL */
    int resume;                 /* skip cases already in the journal */
    int diagnose;               /* run the diagnosis on failures */
    int adapt_layout;           /* run cases the backend does not claim in
                                   layouts it claims (harness/adapt.h) */
    int progress;               /* 1 bar on a terminal, 0 plain lines,
                                   -1 quiet */
    /* Appended members (0 keeps the behaviour of the members above). */
    int failure_blocks;         /* 1: print a block for every bad result on
                                   stdout as it arrives (status, case, message,
                                   diagnosis, first mismatches, __REPRO) */
} iohw_run_options;

/* A run's results, in case order (file order, then id order). */
typedef struct iohw_run_results {
    iohw_result *items;
    int64_t count;
    char backend_name[128];
    char backend_version[128];
    double seconds;             /* wall time of the whole run */
    /* Appended members. */
    double *wall;               /* per item: seconds from handing the case to
                                   a worker to its result; 0 for results taken
                                   from the journal or found INVALID while
                                   listing the cases; NULL when count is 0 */
    int64_t resumed;            /* items taken from the journal */
    iohw_machine machine;       /* the machine the run happened on */
} iohw_run_results;

/* Runs everything; returns 0 when the run completed (whatever the statuses)
 * and -1 on an error that stops the run (backend cannot be loaded, no input
 * readable, bad filter...), with the reason. */
int iohw_run(const iohw_run_options *o, iohw_run_results *out, iohw_error *err);
void iohw_run_results_free(iohw_run_results *r);

/* The one-line command that reproduces a case:
 *   iohw run --backend LIB FILE --filter 'id=CASE'
 * (paths quoted for the shell when needed; without --filter for an entry
 * standing for a whole unreadable file).  Returns the length, or -1 when
 * buf (size n) is too small. */
int iohw_repro_command(const char *backend, const iohw_result *r, char *buf,
                       int n);

/* --- appended ------------------------------------------------------------ */

/* `iohw run --list`: expands the inputs with the options' filter and shard
 * and prints one line per selected case, "ID<TAB>DESCRIPTOR", on out; a
 * case that cannot be read prints "ID<TAB>INVALID: reason".  Needs no
 * backend.  Returns the number of cases listed, or -1 as iohw_run. */
int64_t iohw_run_list(const iohw_run_options *o, FILE *out, iohw_error *err);

/* Prints the summary of a run on out: a table by status, then a table by
 * tag (pass, fail and other counts per tag). */
void iohw_run_summary(const iohw_run_results *r, FILE *out);

/* The exit status of `iohw run` for these results: 1 when some result is
 * FAIL, ERROR, CRASH, TIMEOUT or INVALID, else 0. */
int iohw_run_exit_code(const iohw_run_results *r);

/* 0 when --memory-limit cannot be enforced in this build (AddressSanitizer
 * reserves terabytes of address space, so RLIMIT_AS is not set). */
int iohw_run_memory_limit_works(void);

#endif
