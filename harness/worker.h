/*
 * harness/worker.h - the isolated worker process of `iohw run`.
 *
 * A worker is forked by the run (harness/run.c), loads the backend itself
 * once, then loops: reads a request (case file + case id) from its request
 * pipe, runs the case and writes back one fixed-size message.  For each case
 * it loads everything (IOHW_READ_ALL), maps x, w and bias read-only and y
 * between PROT_NONE guard pages (y's last byte touches the upper guard, a
 * canary fills the slack below y, y starts filled with a signalling-NaN
 * sentinel), calls supports() then run(), checks the canary, compares and,
 * when asked, diagnoses a failure.
 *
 * What the parent cannot learn from the pipe (a worker killed in the middle
 * of a case) it reads from a page the two share (iohw_worker_note): where the
 * buffers were, which backend call was in progress since when, and the
 * faulting address recorded by the worker's SIGSEGV/SIGBUS handler.
 */
#ifndef IOHW_WORKER_H
#define IOHW_WORKER_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "harness/result.h"

/* Parent -> worker. */
typedef struct iohw_worker_request {
    int64_t task;
    char file[4096];
    char case_id[128];
} iohw_worker_request;

/* Worker -> parent: each worker has its own pipe, read in full. */
typedef struct iohw_worker_reply {
    int64_t task;
    iohw_result r;
} iohw_worker_reply;

/* The buffers a fault address can be attributed to. */
enum { IOHW_REGION_X, IOHW_REGION_W, IOHW_REGION_BIAS, IOHW_REGION_Y,
       IOHW_REGION_COUNT };

typedef struct iohw_worker_region {
    uintptr_t map_lo, map_hi;    /* the whole mapping, guard pages included */
    uintptr_t data_lo, data_hi;  /* the tensor itself */
} iohw_worker_region;

/* Backend calls, for the timeout message. */
enum { IOHW_CALL_NONE, IOHW_CALL_SUPPORTS, IOHW_CALL_RUN };

/* The page a worker shares with the parent (MAP_SHARED | MAP_ANONYMOUS). */
typedef struct iohw_worker_note {
    _Atomic int64_t call_since_ns;  /* CLOCK_MONOTONIC entry into the
                                       backend call, 0 outside of one */
    _Atomic int call;               /* IOHW_CALL_* in progress */
    volatile sig_atomic_t signo;    /* set by the fault handler */
    volatile sig_atomic_t addr_valid;  /* 1 when the kernel reported a
                                          faulting address (not for a
                                          signal sent by raise or kill) */
    volatile uintptr_t fault_addr;  /* si_addr of that fault */
    iohw_worker_region regions[IOHW_REGION_COUNT];  /* this case's buffers;
                                                       zero when unmapped */
} iohw_worker_note;

/* What a worker needs to know. */
typedef struct iohw_worker_config {
    const char *backend;         /* shared object path */
    int diagnose;                /* diagnose failures */
    int64_t memory_limit_mb;     /* RLIMIT_AS, 0 = none (ignored under ASan) */
    int adapt_layout;            /* re-express unclaimed cases in layouts
                                    the backend claims (harness/adapt.h) */
} iohw_worker_config;

/* The worker's life in the child: never returns (_exit).  Reads requests
 * from req_fd until end of file, writes replies to rep_fd. */
void iohw_worker_main(const iohw_worker_config *cfg, int req_fd, int rep_fd,
                      iohw_worker_note *note) __attribute__((noreturn));

/* 1 when built with AddressSanitizer (the memory limit is then ignored:
 * ASan reserves terabytes of address space). */
int iohw_worker_asan(void);

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t iohw_worker_now_ns(void);

/* The sentinel y is pre-filled with for a dtype: a signalling NaN pattern
 * (f32 0x7FA5A5A5, f64 0x7FF4A5A5A5A5A5A5, f16 0x7D5A, bf16 0x7FA5) stored in
 * the element's native byte order in bits; returns the element size, or 0
 * for an unknown dtype. */
int iohw_worker_sentinel(int dtype, unsigned char bits[8]);

/* Describes how a worker died: "killed by signal SIGSEGV (Segmentation
 * fault)" or "exited with status 3", then the backend call it was in
 * (" in run()"), then, when the note recorded a fault address, what it
 * looks like ("; the address is inside x, an input mapped read-only: looks
 * like a write to an input"), and when it was in no backend call, that it
 * was the harness's own work.  note may be NULL (nothing but the first
 * part). */
void iohw_worker_death_message(int wait_status, const iohw_worker_note *note,
                               char *buf, int n);

#endif
