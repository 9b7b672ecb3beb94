/*
 * harness/run.h - `iohw run`: enumerate cases, run each in an isolated worker
 * process against a backend, compare, diagnose, journal.
 *
 * A child of the parent loads the backend once to fail fast (the parent
 * never loads it), the parent expands the inputs (harness/listing.h) and keeps
 * `jobs` verifier processes busy (sandbox/worker.h): a verifier reads, compares
 * and diagnoses; its worker loads the backend and runs one case at a time
 * with its output between guard pages and its inputs read-only, in memory
 * the two share.  A worker that dies makes its case CRASH (the message names the
 * signal or the exit status, and what a fault address points at); a backend
 * call that outlives the timeout makes its case TIMEOUT (the worker is
 * SIGKILLed); either way a fresh worker takes over and the run goes on.
 * Results are appended to the journal as they arrive.
 */
#ifndef IOHW_RUN_H
#define IOHW_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "results/result.h"
#include "results/run_results.h"
#include "sandbox/spawn.h"
#include "iohw/backend.h"
#include "oracle/error.h"

/* The defaults iohw_run_options_init sets (and `iohw run` documents). */
#define IOHW_RUN_MEMORY_LIMIT_MB 8192   /* per worker */
#define IOHW_RUN_BREAKER 3              /* TIMEOUTs that close a class */
/* The most worker processes (--jobs, and the default of one per core) and
 * oracle threads (--threads) one command starts. */
#define IOHW_JOBS_MAX 1024

/* Progress modes (iohw_run_options.progress). */
#define IOHW_PROGRESS_BAR 1      /* a bar redrawn in place (a terminal) */
#define IOHW_PROGRESS_LINES 0    /* a plain line a minute and one at the end */
#define IOHW_PROGRESS_NONE (-1)  /* none (--quiet) */

typedef struct iohw_run_options {
    /* What to run. */
    const char *backend;        /* path of the backend shared object */
    const char *const *inputs;  /* suite directories or case files */
    int ninputs;
    const char *filter;         /* or NULL */
    int shard_index, shard_count;  /* 1/1 when not sharded */
    /* What the backend declares (its repro commands carry them too). */
    int adapt_layout;           /* run cases the backend does not claim in
                                   layouts it claims (judge/adapt.h) */
    unsigned subnormals_flush;  /* bit 1 << dtype for each dtype whose
                                   subnormals the backend declares it flushes
                                   to zero (--subnormals flush[:DTYPES],
                                   specification section 3.4); 0 = ieee */
    /* The rounding the backend declares for quantized cases (`--rounding
     * MODE`, specification section 11.6), IOHW_ROUND_*; a case asking for
     * another mode whose output differs only by one at ties, as this mode
     * rounds them, passes with the note IOHW_RESULT_NOTE_ROUNDING.  0: none
     * (every case as it asks). */
    int32_t rounding;
    /* Processes and limits. */
    int jobs;                   /* worker processes; 0 = number of cores */
    double timeout;             /* seconds per backend call (supports() or
                                   run()); 0 = none */
    int timeout_scaled;         /* 1: `timeout` is the floor of a limit that
                                   grows with each case's work
                                   (harness/timeouts.h); 0: `timeout` is
                                   the limit of every case */
    int64_t memory_limit_mb;    /* per worker; 0 = none (ignored under ASan,
                                   see iohw_run_memory_limit_works) */
    int breaker;                /* after this many TIMEOUTs in one class
                                   (rank and dtype) the class's remaining
                                   cases are not run (harness/breaker.h);
                                   0 = off */
    /* Judging. */
    int diagnose;               /* run the diagnosis on failures */
    int allow_empty;            /* 1: a run that compared no case's output
                                   may exit 0 */
    /* Timing (speed, docs/REPORT_FORMAT.md "speed"): `--repeat N` makes a
     * performance run: run() is called N times on each claimed case (the
     * first call's output is judged) and the results carry the median and
     * fastest time, the GMAC/s and, with speed_reference, the ratio to the
     * bundled reference timed N times on the same case in the same worker.
     * 0: an ordinary run (one call, its time in seconds only).  The timing
     * never changes a status or the exit code. */
    int repeat;
    int speed_reference;        /* 1: time the reference (with repeat) */
    /* The journal. */
    const char *journal;        /* append results here as they come, or NULL */
    int resume;                 /* skip cases already in the journal */
    /* The console. */
    int progress;               /* IOHW_PROGRESS_* */
    int failure_blocks;         /* 1: print blocks of bad results on stdout
                                   as they arrive (status, case, message,
                                   diagnosis, first mismatches, __REPRO), as
                                   many as `show` allows */
    int show;                   /* `--show N`: with failure_blocks, the
                                   first block of each group of failures
                                   (judge/verdict.h) is printed, then at
                                   most this many more in all; < 0: every
                                   block.  IOHW_RUN_SHOW by default */
    int all_tags;               /* `--tags`: the summary's table by tag
                                   lists every tag; 0: only the tags with a
                                   result other than PASS */
    int quiet;                  /* `--quiet`: the summary leaves out the
                                   table by tag unless all_tags (progress
                                   is set apart, in progress) */
    /* Appended: 1 gives every case a fresh worker process (the backend
     * loaded anew), so that nothing one case did to the process (a heap it
     * overflowed while answering well) reaches the next; `--isolate`. */
    int isolate;
} iohw_run_options;

/* The most calls --repeat asks for. */
#define IOHW_RUN_REPEAT_MAX 1000

/* Failure blocks printed beyond the first of each group, by default. */
#define IOHW_RUN_SHOW 10

/* Zeroes *o and sets the defaults of `iohw run`: shard 1/1, one job per
 * core, a scaled timeout with floor IOHW_TIMEOUT_FLOOR_S, memory limit
 * IOHW_RUN_MEMORY_LIMIT_MB, diagnosis on, breaker IOHW_RUN_BREAKER, plain
 * progress lines, no failure blocks, show IOHW_RUN_SHOW, repeat 0 with
 * speed_reference 1. */
void iohw_run_options_init(iohw_run_options *o);

/* Runs everything; returns 0 when the run completed (whatever the statuses)
 * and -1 on an error that stops the run (backend cannot be loaded, no input
 * readable, bad filter...), with the reason. */
int iohw_run(const iohw_run_options *o, iohw_run_results *out, iohw_error *err);

/* The options of the run that change a case's outcome, for its repro
 * command (results/result.h); a memory limit of IOHW_RUN_MEMORY_LIMIT_MB
 * is left out as the default. */
void iohw_repro_options_of_run(const iohw_run_options *run,
                               iohw_repro_options *o);

/* --- appended ------------------------------------------------------------ */

/* `iohw run --list`: expands the inputs with the options' filter and shard
 * and prints one line per selected case, "ID<TAB>DESCRIPTOR", on out; a
 * case that cannot be read prints "ID<TAB>INVALID: reason".  Needs no
 * backend.  Returns the number of cases listed, or -1 as iohw_run. */
int64_t iohw_run_list(const iohw_run_options *o, FILE *out, iohw_error *err);

/* Prints the summary of a run on out, the verdict last: what ran and a
 * table by status; a table by tag (pass, fail and other counts per tag)
 * on a failed run that is not r->quiet, with only the tags with a count
 * other than pass, or with every tag, whatever the run, when r->all_tags;
 * the notes and speed parts; the failures grouped by diagnosis
 * (judge/verdict.h); then the compared count, advice when more than half
 * of the cases are UNSUPPORTED or the claimed-pair coverage is below 90%
 * ("your backend claims 26 of 300 case(s) ...: `iohw gen --profile smoke
 * --for-backend LIB -o DIR` writes a suite inside what it claims"), and
 * "OK: ..." or "FAILED: HEADLINE (...)" as the last line. */
void iohw_run_summary(const iohw_run_results *r, FILE *out);

#endif
