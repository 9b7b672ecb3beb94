/*
 * sandbox/guard.h - running untrusted work (reading a case file nobody
 * vouches for) in a forked child with a time limit and a memory limit.
 *
 * A corrupt HDF5 file can crash libhdf5, make it loop for ever (1.10.8 in
 * its global-heap code on a broken variable-length string) or allocate what
 * the machine does not have.  Whatever the child does, the caller gets an
 * outcome: it finished (with its exit code), died of a signal, ran past the
 * time limit, or grew past the memory limit (each of the last two: killed),
 * with its wall time and peak resident memory.  What the child writes to
 * the descriptor it is handed comes back as one buffer.
 *
 * The memory limit is checked on the child's resident memory while it
 * runs (every 10 ms); RLIMIT_AS is set to twice the limit plus 1 GB where
 * that works (not under AddressSanitizer, which reserves terabytes of
 * address space), so that one huge allocation fails at once.
 *
 * Test builds can make a child started for PATH crash or hang
 * (sandbox/test_hook.h, point "read").
 */
#ifndef IOHW_GUARD_H
#define IOHW_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "oracle/error.h"

typedef struct iohw_guard_limits {
    double seconds;     /* wall-clock limit; <= 0: none */
    int64_t memory_mb;  /* resident-memory limit; <= 0: none */
} iohw_guard_limits;

/* The time a child may take to read a case file of `bytes` bytes: 5 s
 * and 1 s per whole MiB, at most 60 s (a small file that makes libhdf5 loop is
 * stopped in seconds; reading and validating the largest file of the ci
 * suite takes a tenth of its limit, or less, on a loaded machine). */
double iohw_guard_read_seconds(int64_t bytes);

/* The limits of a child reading `path` (a case file, or a directory: the
 * bytes of its files): iohw_guard_read_seconds of its size (60 s when it
 * cannot be read) and 4096 MB; or the seconds in the environment variable
 * IOHW_READ_TIMEOUT when set. */
iohw_guard_limits iohw_guard_read_limits(const char *path);

typedef enum iohw_guard_end {
    IOHW_GUARD_EXITED,    /* returned or exited; see code */
    IOHW_GUARD_SIGNALED,  /* died of a signal */
    IOHW_GUARD_TIMEOUT,   /* killed at the time limit */
    IOHW_GUARD_MEMORY     /* killed at the memory limit (or died near it) */
} iohw_guard_end;

typedef struct iohw_guard_outcome {
    iohw_guard_end end;
    int code;           /* EXITED: the exit status */
    int signal;         /* SIGNALED: the signal */
    double seconds;     /* wall time */
    int64_t peak_kb;    /* peak resident memory of the child */
    char *output;       /* what the child wrote (malloc'd, NUL-terminated) */
    size_t output_len;
} iohw_guard_outcome;

/* The child's work: writes to fd what the parent should receive and
 * returns the exit status. */
typedef int (*iohw_guard_fn)(void *arg, int fd);

/* Runs fn(arg, fd) in a forked child under lim (NULL: none); `path` names
 * the file the child reads (for the test hook "read").  Fails only when
 * the child cannot be started or memory runs out; *out is then zeroed. */
int iohw_guard_run(iohw_guard_fn fn, void *arg, const char *path,
                   const iohw_guard_limits *lim, iohw_guard_outcome *out,
                   iohw_error *err);

void iohw_guard_outcome_free(iohw_guard_outcome *o);

/* 1 when the child exited with status 0. */
int iohw_guard_ok(const iohw_guard_outcome *o);

/* Why a child reading `path` did not finish, in the words every command
 * uses: "PATH: reading the file crashed the HDF5 library (signal 11,
 * Segmentation fault): the file is corrupt", "... took longer than 60 s
 * (killed): ...", "... needed more than 4096 MB (killed): ...".  For an
 * exit with a non-zero status (a crash under AddressSanitizer), "...
 * crashed the HDF5 library (the reading process exited with status N
 * before it finished): ...". */
void iohw_guard_describe(const iohw_guard_outcome *o, const iohw_guard_limits *lim,
                         const char *path, char *buf, size_t n);

#endif
