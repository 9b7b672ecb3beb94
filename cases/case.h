/*
 * cases/case.h - HDF5 case files, schema 1 (specification section 4): one
 * case in memory, the writer and the validating reader.
 *
 * A reader never trusts a file: every attribute is checked for presence,
 * type and range, every dataset's shape against the attributes, the output
 * size against the formula, the layouts against the rank, and element counts
 * against IOHW_MAX_ELEMENTS and what the file stores before anything is
 * allocated.  Errors name the
 * file, the case and the reason.
 */
#ifndef IOHW_CASE_H
#define IOHW_CASE_H

#include <stdint.h>

#include "iohw/backend.h"
#include "oracle/error.h"

#define IOHW_SCHEMA_VERSION 1

/* The reader's sane-size limits.  A tensor is allocated only when its
 * bytes are at most IOHW_CASE_TENSOR_BYTES_MAX and the file stores them
 * (unfiltered: all of them; compressed: at least 1/IOHW_CASE_EXPANSION_MAX,
 * beyond the best ratio deflate reaches).  Checking terms_max costs 8 bytes
 * per element of the longest output axis: done at once up to
 * IOHW_CASE_TERMS_AXIS_MAX elements, beyond that only once an output
 * dataset backs the size. */
#define IOHW_CASE_TENSOR_BYTES_MAX ((uint64_t)1 << 32)
#define IOHW_CASE_EXPANSION_MAX 1100
#define IOHW_CASE_TERMS_AXIS_MAX ((int64_t)1 << 20)
#define IOHW_CASE_ID_MAX 128

typedef struct iohw_case {
    char id[IOHW_CASE_ID_MAX];  /* letters, digits, '.', '_', '-' */
    iohw_problem p;
    char fill[16];
    uint64_t seed;
    char *tags;           /* comma-separated, malloc'd, never NULL once read */
    char *descriptor;     /* malloc'd, never NULL once read */
    int64_t terms_max;
    /* Tensors, each malloc'd or NULL when absent.  The inputs are those of
     * the problem's direction (specification section 13): forward x, w,
     * bias; BWD_D dy, w; BWD_W x, dy.  y, y_f64 and err_bound hold the
     * direction's output, iohw_problem_out_count(&p) elements: forward y;
     * BWD_D dx (data layout, C = C_in; datasets dx, dx_f64, dx_err_bound);
     * BWD_W dw (weight layout) followed by db ([C_out], when has_bias;
     * datasets dw, dw_f64, dw_err_bound, db, db_f64, db_err_bound). */
    void *x;              /* dtype, data layout, C = C_in */
    void *w;              /* dtype, weight layout */
    void *bias;           /* dtype, [C_out]; NULL without bias (and in a
                             backward case) */
    void *y;              /* dtype: the direction's output (above) */
    double *y_f64;        /* same count as y */
    double *err_bound;    /* same count as y */
    /* A quantized case (dtype s8 or u8; specification section 11.4): w is
     * of w_dtype, bias int32, y of y_dtype (exact: y_f64 and err_bound are
     * NULL), and requant holds run_quant()'s requant tensor (float s_w[n],
     * or int32 multiplier[n] then shift[n]; NULL for an s32 y), an input. */
    void *requant;
    /* A backward case: dy, dtype, data layout, C = C_out (y's shape); an
     * input.  NULL in a forward case. */
    void *dy;
} iohw_case;

/* Releases every buffer of a case and zeroes it. */
void iohw_case_free(iohw_case *c);

/* 1 when s is a valid case id. */
int iohw_case_id_valid(const char *s);

typedef struct iohw_case_file iohw_case_file;

/* --- writing --------------------------------------------------------- */

/* Creates a case file: written under a temporary name in path's folder and
 * renamed to path by iohw_case_file_close when every write worked (an
 * existing file is replaced only then; a failed or killed run leaves it
 * as it was).  Output is byte-for-byte deterministic for the same cases
 * written in the same order. */
iohw_case_file *iohw_case_file_create(const char *path, iohw_error *err);

/* Writes a complete case (inputs and outputs all present). */
int iohw_case_file_write(iohw_case_file *f, const iohw_case *c,
                         iohw_error *err);

/* --- reading --------------------------------------------------------- */

/* Opens an existing case file read-only and checks its schema. */
iohw_case_file *iohw_case_file_open(const char *path, iohw_error *err);

/* Number of cases and their ids, in the file's (sorted) order. */
int iohw_case_file_count(const iohw_case_file *f);
const char *iohw_case_file_id(const iohw_case_file *f, int i);

/* What iohw_case_file_read loads. */
enum {
    IOHW_READ_ATTRS = 0,       /* attributes only, no tensors */
    IOHW_READ_INPUTS = 1,      /* x, w, bias (backward: dy and x or w) */
    IOHW_READ_OUTPUTS = 2,     /* y, y_f64, err_bound (backward: the
                                  direction's output, dx or dw and db) */
    IOHW_READ_ALL = 3,
    IOHW_READ_USER = 4         /* a user-supplied case for `iohw oracle`:
                                  out_size, terms_max, fill, seed, tags,
                                  descriptor and outputs may be absent */
};

/* Reads and validates one case.  On failure *c is left freed. */
int iohw_case_file_read(iohw_case_file *f, const char *id, unsigned what,
                        iohw_case *c, iohw_error *err);

/* Optional and process-wide: iohw_case_file_read calls fn(ctx, NAME) as it
 * starts on each dataset ("x", "y_f64", ...), so that a process that dies
 * inside libhdf5 can leave behind what it was reading.  fn NULL turns it
 * off. */
void iohw_case_read_watch(void (*fn)(void *ctx, const char *dataset),
                          void *ctx);

/* Path the file was opened or created with. */
const char *iohw_case_file_path(const iohw_case_file *f);

/* Closes a file opened either way; returns -1 if writing it failed (the
 * written file is then removed, never put in place). */
int iohw_case_file_close(iohw_case_file *f, iohw_error *err);

/* Closes a file being written without putting it in place (a run that
 * failed): an existing file of that name stays as it was. */
void iohw_case_file_abandon(iohw_case_file *f);

#endif
