/*
 * sandbox/worker.h - the processes of `iohw run` that hold a case: the
 * verifier and the worker.
 *
 * Per slot the run (harness/run.c) forks a verifier (harness/verifier.c),
 * which never loads the backend: it reads each case the parent sends,
 * writes x, w, bias and a sentinel-filled y (a canary in the slack below y)
 * into a memfd, and forks a worker, which loads the backend once and serves
 * the verifier's requests over a Unix socket (length-prefixed records,
 * sandbox/channel.h): CASE (supports(), with --adapt-layout the probing of
 * other layouts, then run() when claimed) and RUN (run() only, for an
 * adapted case); run() gets the memfd mapped inside a PROT_NONE reservation,
 * x, w and bias read-only, y ending exactly at a guard page.  Around each backend call the worker restores the
 * floating-point environment it captured once after loading the backend,
 * and reports what the call did to the process as warnings
 * (sandbox/worker_rude.c).  The verifier checks the canary, compares,
 * diagnoses and sends the result to the parent.  A worker that dies makes
 * the case CRASH; the verifier reports it and exits, and the parent starts
 * a fresh pair.
 *
 * What the parent cannot learn from the pipe it reads from a page the three
 * share (iohw_worker_note): where the worker's buffers were, which backend
 * call was in progress since when, the faulting address recorded by the
 * worker's SIGSEGV/SIGBUS handler, and what the verifier was doing (reading
 * which dataset of the case), so that a verifier killed inside libhdf5
 * makes the case INVALID, not a CRASH of the backend.
 */
#ifndef IOHW_WORKER_H
#define IOHW_WORKER_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "sandbox/channel.h"
#include "results/result.h"

/* The buffers a fault address can be attributed to (REQUANT: a quantized
 * case's requant tensor, read-only like x and w; empty otherwise; DY: a
 * backward case's dy, read-only; Y: the direction's output, dx or dw
 * followed by db in a backward case). */
enum { IOHW_REGION_X, IOHW_REGION_W, IOHW_REGION_BIAS, IOHW_REGION_Y,
       IOHW_REGION_REQUANT, IOHW_REGION_DY, IOHW_REGION_COUNT };

typedef struct iohw_worker_region {
    uintptr_t map_lo, map_hi;    /* the whole mapping, guard pages included */
    uintptr_t data_lo, data_hi;  /* the tensor itself */
} iohw_worker_region;

/* Backend calls, for the timeout message. */
enum { IOHW_CALL_NONE, IOHW_CALL_SUPPORTS, IOHW_CALL_RUN };

/* What the verifier is doing. */
enum { IOHW_STAGE_IDLE,      /* waiting for a case */
       IOHW_STAGE_READING,   /* reading the case file */
       IOHW_STAGE_BACKEND,   /* the worker has the case */
       IOHW_STAGE_JUDGING }; /* comparing, diagnosing */

/* The page the parent shares with a verifier and its worker (MAP_SHARED |
 * MAP_ANONYMOUS, mapped by the parent before it forks). */
typedef struct iohw_worker_note {
    _Atomic int64_t call_since_ns;  /* CLOCK_MONOTONIC entry into the
                                       backend call, 0 outside of one */
    _Atomic int call;               /* IOHW_CALL_* in progress */
    char call_name[24];             /* IOHW_CALL_RUN: which entry point
                                       ("run_bwd_weights()"; run_call.h) */
    volatile sig_atomic_t signo;    /* set by the fault handler */
    volatile sig_atomic_t addr_valid;  /* 1 when the kernel reported a
                                          faulting address (not for a
                                          signal sent by raise or kill) */
    volatile uintptr_t fault_addr;  /* si_addr of that fault */
    iohw_worker_region regions[IOHW_REGION_COUNT];  /* this case's buffers;
                                                       zero when unmapped */
    /* Written by the verifier. */
    _Atomic int stage;              /* IOHW_STAGE_* */
    _Atomic int64_t stage_since_ns; /* CLOCK_MONOTONIC start of the stage */
    char reading[256];              /* while reading: "dataset 'y_f64'"
                                       (cases/case.h's read watch) or "the
                                       attributes" */
} iohw_worker_note;

/* What a verifier and its worker need to know. */
typedef struct iohw_worker_config {
    const char *backend;         /* shared object path */
    int diagnose;                /* diagnose failures */
    int64_t memory_limit_mb;     /* RLIMIT_AS, 0 = none (ignored under ASan) */
    int adapt_layout;            /* re-express unclaimed cases in layouts
                                    the backend claims (judge/adapt.h) */
    unsigned subnormals_flush;   /* dtypes whose subnormals the backend
                                    declares flushed (harness/run.h) */
    /* Appended (speed, harness/run.h): run() is called this many times on
     * each claimed case (0 or 1: once, as before), and with
     * speed_reference the bundled reference is timed on it too. */
    int repeat;
    int speed_reference;
    int32_t rounding;            /* the declared rounding (harness/run.h) */
    int isolate;                 /* a fresh worker for every case (harness/run.h) */
} iohw_worker_config;

/* Requests of the verifier to the worker (the first u32 of a record; then
 * the problem, a u32 adapt flag, the four iohw_work_piece, and the memfd
 * with the record): CASE calls supports() (with adapt, probes other
 * layouts when not claimed) and, when claimed, run(); RUN calls run()
 * only (an adapted case, already claimed). */
enum { IOHW_WORK_CASE = 1, IOHW_WORK_RUN = 2 };

/* Where a tensor sits in the memfd of a RUN request: its section (whole
 * pages) and the data inside it, which ends at the section's end. */
typedef struct iohw_work_piece {
    uint64_t section_off, section_len;
    uint64_t data_off, data_len;
} iohw_work_piece;

/* The worker's answer to either request.  rc is the backend's status, or
 * one of these. */
enum { IOHW_WORK_NOT_LOADED = -1000,  /* message: why the backend did not load */
       IOHW_WORK_HARNESS = -1001 };   /* message: the harness's own failure */

typedef struct iohw_work_reply {
    int32_t rc;              /* the status of call */
    int32_t call;            /* IOHW_CALL_SUPPORTS or IOHW_CALL_RUN */
    double seconds;          /* RUN: run()'s wall time */
    int32_t adapted;         /* SUPPORTS with adapt: 1 when xl/wl claimed */
    char xl[16], wl[16];
    const char *message;     /* last_error() when rc is not IOHW_OK (a kept
                                text, results/text.h; "" when none) */
    const char *warnings;    /* what the calls did to the process (kept) */
    /* Appended (speed): with repeat > 1 seconds is the median of the calls
     * made (repeat of them), seconds_min the fastest; ref_seconds the
     * reference's median, 0 when it was not timed or failed. */
    int32_t repeat;
    double seconds_min;
    double ref_seconds;
} iohw_work_reply;

void iohw__work_reply_encode(iohw__msg *m, const iohw_work_reply *w);
int iohw__work_reply_decode(iohw__msg *m, iohw_work_reply *w);

/* The worker's life: never returns (_exit).  Loads the backend, then
 * serves requests on fd (a Unix socket) until end of file; out_fd and
 * err_fd become its stdout and stderr (non-blocking pipes the verifier
 * drains). */
void iohw_worker_main(const iohw_worker_config *cfg, int fd, int out_fd,
                      int err_fd, iohw_worker_note *note)
    __attribute__((noreturn));

/* The sentinel y is pre-filled with for a dtype: a signalling NaN pattern
 * (f32 0x7FA5A5A5, f64 0x7FF4A5A5A5A5A5A5, f16 0x7D5A, bf16 0x7FA5) stored in
 * the element's native byte order in bits, and for the integer types of a
 * quantized y the bytes 0xA5 (s8 -91, u8 165, s32 0xA5A5A5A5), which a
 * correct y may hold too (the comparison counts an element unwritten only
 * where it also differs); returns the element size, or 0 for an unknown
 * dtype. */
int iohw_worker_sentinel(int dtype, unsigned char bits[8]);

/* Describes how a worker died: "killed by signal SIGSEGV (Segmentation
 * fault)" or "exited with status 3", then the backend call it was in
 * (" in run()", or the entry point the note names: " in
 * run_bwd_weights()"), then, when the note recorded a fault address, what it
 * looks like ("; the address is inside x, an input mapped read-only: looks
 * like a write to an input"), and when it was in no backend call, that it
 * was the harness's own work (exit status 70 there: the worker could not
 * set itself up).  note may be NULL (nothing but the first part). */
void iohw_worker_death_message(int wait_status, const iohw_worker_note *note,
                               char *buf, int n);

#endif
