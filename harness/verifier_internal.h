/*
 * harness/verifier_internal.h - what the verifier's files share
 * (verifier.c: cases and verdicts; verifier_worker.c: its worker, the
 * requests and the shared tensors).  Internal to the harness.
 */
#ifndef IOHW_VERIFIER_INTERNAL_H
#define IOHW_VERIFIER_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cases/case.h"
#include "sandbox/channel.h"
#include "sandbox/worker.h"

/* What one output stream of the worker carried during a call. */
typedef struct iohw__stream {
    int fd;                 /* read end, non-blocking; -1 at end of file */
    int64_t bytes;
    char first[121];        /* the first line, or its start */
    size_t first_len;
    int first_done;         /* a newline ended it */
} iohw__stream;

typedef struct iohw__verifier {
    const iohw_worker_config *cfg;
    iohw_worker_note *note;
    pid_t w_pid;            /* 0: no worker */
    int w_fd;               /* socket to the worker */
    iohw__stream out[2];    /* its stdout, stderr */
    int w_dead;             /* it died during this case */
    iohw_case_file *file;   /* the last file, kept open */
    char path[PATH_MAX];
    int memfd;              /* the tensors, reused from case to case */
    iohw__msg msg;
} iohw__verifier;

/* The tensors of a case in the memfd, as the verifier sees them. */
typedef struct iohw__tensors {
    iohw_work_piece pc[IOHW_REGION_COUNT];
    unsigned char *map;
    size_t len;
    unsigned char sent[8];  /* y's sentinel */
    size_t es;
} iohw__tensors;

/* Starts the worker; 0 or -1 (errno). */
int iohw__verifier_spawn(iohw__verifier *v);

/* Sends the request in v->msg (with memfd when >= 0) and waits for the
 * reply, draining the worker's output meanwhile; what it wrote becomes a
 * warning in r naming the calls.  Returns 0 with *w filled; -1 when the
 * worker died (r becomes its CRASH and v->w_dead is set) or broke the
 * protocol (r becomes an ERROR). */
int iohw__verifier_ask(iohw__verifier *v, int memfd, iohw_work_reply *w,
                       iohw_result *r);

/* Writes x, w, bias and a sentinel-filled y (canary below it) into the
 * memfd and maps it; 0, or -1 with err set. */
int iohw__tensors_make(iohw__verifier *v, const iohw_case *c,
                       iohw__tensors *t, iohw_error *err);
/* y in the verifier's mapping, and the canary damage (bytes between the
 * first overwritten canary byte and y; 0 when intact). */
const unsigned char *iohw__tensors_y(const iohw__tensors *t);
size_t iohw__tensors_canary_damage(const iohw__tensors *t);
void iohw__tensors_free(iohw__tensors *t);

/* Stops the worker: end of file on its socket, then waits for it. */
void iohw__verifier_stop(iohw__verifier *v);

#endif
