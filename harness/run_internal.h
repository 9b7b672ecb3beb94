/*
 * harness/run_internal.h - what the files of `iohw run` share (run.c,
 * run_prepare.c, verifier.c, worker.c); not an interface for other
 * modules.
 */
#ifndef IOHW_RUN_INTERNAL_H
#define IOHW_RUN_INTERNAL_H

#include "harness/listing.h"
#include "harness/run.h"

/* Checks the options, loads the backend once in a child process (the
 * parent never loads a backend: some start threads when loaded) to fail
 * fast and to learn its name and version, expands the inputs, and allocates
 * out->items and out->wall (zeroed) for every entry. */
int iohw__run_prepare(const iohw_run_options *o, iohw_listing *s,
                      iohw_run_results *out, iohw_error *err);

/* With --resume, copies the journal's results for the suite's entries into
 * out->items and marks them 1 in *known (malloc'd, one byte per entry);
 * lines that do not parse are reported on stderr. */
int iohw__run_known(const iohw_run_options *o, const iohw_listing *s,
                    iohw_run_results *out, unsigned char **known,
                    iohw_error *err);

/* The number of online processors (at least 1). */
int iohw__default_jobs(void);

/* The limit on a whole case (loading, comparing and diagnosing included)
 * for a backend-call timeout. */
double iohw__case_ceiling(double timeout);

/* _exit for a forked child; coverage builds write their counters first
 * (_exit skips gcov's exit handler). */
void iohw__exit_child(int code) __attribute__((noreturn));

#endif
