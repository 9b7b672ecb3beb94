/*
 * harness/run_internal.h - what the files of `iohw run` share (run.c,
 * run_prepare.c, verifier.c, verifier_worker.c); not an interface for
 * other modules.
 */
#ifndef IOHW_RUN_INTERNAL_H
#define IOHW_RUN_INTERNAL_H

#include "harness/listing.h"
#include "harness/run.h"
#include "sandbox/spawn.h"
#include "sandbox/worker.h"

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

/* The verifier's life in the child: never returns (_exit).  Reads
 * requests (task, file, case id) from req_fd until end of file, writes one
 * reply (channel.h's iohw__reply_encode) per case to rep_fd. */
void iohw_verifier_main(const iohw_worker_config *cfg, int req_fd, int rep_fd,
                        iohw_worker_note *note) __attribute__((noreturn));

#endif
