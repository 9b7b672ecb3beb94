/*
 * harness/repro.h - the one-line command that reproduces a case's result,
 * printed after every bad result (`__REPRO:`) and written into the reports.
 *
 *   iohw run --backend LIB FILE --filter 'id=CASE' [OPTIONS]
 *
 * OPTIONS are the options of the run that change a case's outcome, so that
 * the command gives the same status: --adapt-layout (also when the result's
 * message shows that the case was run in adapted layouts), a --timeout that
 * is not the scaled default, a --memory-limit that is not the default, a
 * --subnormals that is not ieee.  An
 * option that changes an outcome in the future gets a member here and a
 * line in iohw_repro_format.
 */
#ifndef IOHW_REPRO_H
#define IOHW_REPRO_H

#include <stdint.h>

#include "harness/result.h"

/* The beginning of the message of a case run in adapted layouts
 * ("run with layouts NWC/IOW (adapted from NCW/OIW)..."). */
#define IOHW_REPRO_ADAPTED "run with layouts "

typedef struct iohw_repro_options {
    const char *backend;      /* NULL: "LIB" */
    int adapt_layout;         /* --adapt-layout */
    double timeout;           /* --timeout S when timeout_fixed */
    int timeout_fixed;
    int64_t memory_limit_mb;  /* --memory-limit MB when >= 0 and not
                                 IOHW_RUN_MEMORY_LIMIT_MB; -1: default */
    unsigned subnormals_flush; /* --subnormals flush:... when not 0 */
} iohw_repro_options;

/* The options of a run that change outcomes (o->backend included). */
struct iohw_run_options;
void iohw_repro_options_of_run(const struct iohw_run_options *run,
                               iohw_repro_options *o);

/* Options holding only the backend. */
void iohw_repro_options_backend(const char *backend, iohw_repro_options *o);

/* The command (paths quoted for the shell when needed; without --filter
 * for an entry standing for a whole unreadable file).  o may be NULL (no
 * options).  Returns the length, or -1 when buf (size n) is too small. */
int iohw_repro_format(const iohw_repro_options *o, const iohw_result *r,
                      char *buf, int n);

/* The same with only the backend (and --adapt-layout when the result's
 * message shows adapted layouts). */
int iohw_repro_command(const char *backend, const iohw_result *r, char *buf,
                       int n);

#endif
