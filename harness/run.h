/*
 * harness/run.h - `iohw run`: enumerate cases, run each in an isolated worker
 * process against a backend, compare, diagnose, journal.
 */
#ifndef IOHW_RUN_H
#define IOHW_RUN_H

#include <stdint.h>

#include "harness/result.h"
#include "oracle/error.h"

typedef struct iohw_run_options {
    const char *backend;        /* path of the backend shared object */
    const char *const *inputs;  /* suite directories or case files */
    int ninputs;
    const char *filter;         /* or NULL */
    int shard_index, shard_count;  /* 1/1 when not sharded */
    int jobs;                   /* worker processes; 0 = number of cores */
    double timeout;             /* seconds per case; 0 = none */
    int64_t memory_limit_mb;    /* per worker; 0 = none */
    const char *journal;        /* append results here as they come, or NULL */
    int resume;                 /* skip cases already in the journal */
    int diagnose;               /* run the diagnosis on failures */
    int progress;               /* 1 bar on a terminal, 0 plain lines,
                                   -1 quiet */
} iohw_run_options;

/* A run's results, in case order (file order, then id order). */
typedef struct iohw_run_results {
    iohw_result *items;
    int64_t count;
    char backend_name[128];
    char backend_version[128];
    double seconds;             /* wall time of the whole run */
} iohw_run_results;

/* Runs everything; returns 0 when the run completed (whatever the statuses)
 * and -1 on an error that stops the run (backend cannot be loaded, no input
 * readable, bad filter...), with the reason. */
int iohw_run(const iohw_run_options *o, iohw_run_results *out, iohw_error *err);
void iohw_run_results_free(iohw_run_results *r);

/* The one-line command that reproduces a case:
 *   iohw run --backend LIB FILE --filter 'id=CASE' */
int iohw_repro_command(const char *backend, const iohw_result *r, char *buf,
                       int n);

#endif
