/*
 * sandbox/probe.h - asking a backend's supports() about many problems: a
 * child process loads the backend once (the iohw process never loads one;
 * some start threads when loaded) and answers one problem at a time over a
 * socket.  `iohw gen --for-backend` and the claimed-pair coverage of
 * `iohw run` learn a backend's claim this way (specification section 9).
 */
#ifndef IOHW_PROBE_H
#define IOHW_PROBE_H

#include <stdint.h>
#include <sys/types.h>

#include "iohw/backend.h"
#include "oracle/error.h"

/* Seconds one supports() call may take before the child is killed. */
#define IOHW_PROBE_TIMEOUT 30
/* The longest name, version or loader message the child may send (1 MiB):
 * a longer one is refused as garbage, with a message, never cut. */
#define IOHW_PROBE_TEXT_MAX ((uint32_t)1 << 20)

typedef struct iohw_probe {
    pid_t pid;          /* the child; 0 when stopped */
    int fd;             /* our end of the socket */
    int64_t calls;      /* supports() calls answered */
    int64_t claimed;    /* of those, IOHW_OK */
    /* malloc'd, whole (no fixed size); freed by iohw_probe_stop */
    char *backend;
    char *name;         /* the backend's name and version */
    char *version;
} iohw_probe;

/* Starts the child, loads the backend in it and learns its name and
 * version.  Errors are the loader's (sandbox/loader.h), or name the backend
 * and say how the child died.  `iohw run` checks its backend this way. */
int iohw_probe_start(const char *backend, iohw_probe *pr, iohw_error *err);

/* 1 when supports() returned IOHW_OK for p, 0 for any other status; -1 when
 * the child died, hung (IOHW_PROBE_TIMEOUT) or the socket failed, with the
 * reason (the probe is stopped then). */
int iohw_probe_supports(iohw_probe *pr, const iohw_problem *p,
                        iohw_error *err);

/* Ends the child (unloads the backend), waits for it and frees the
 * strings.  Safe twice. */
void iohw_probe_stop(iohw_probe *pr);

#endif
