/*
 * cases/h5util.h - small HDF5 helpers of the cases module (internal): HDF5
 * error stacks turned into iohw_error messages, the element types of the
 * case dtypes, checked opening of links, and typed attribute reading and
 * writing.  Every reader here checks class, size and extent before it reads
 * a byte, and every message names the attribute or dataset it is about.
 */
#ifndef IOHW_H5UTIL_H
#define IOHW_H5UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "iohw/backend.h"
#include "oracle/error.h"

/* Longest string attribute a reader accepts (tags, descriptor). */
#define IOHW_H5_STRING_MAX 65535

/* Turns off HDF5's automatic error printing for the calling thread (the
 * library is thread-safe, so the setting is per thread). */
void iohw__h5_quiet(void);

/* Sets err to the formatted context followed by HDF5's reason from the
 * current error stack (": <reason>"), then clears the stack; returns -1. */
int iohw__h5_fail(iohw_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A file access property list for case files: closing a file closes
 * everything in it, and file locks are used where the file system has
 * them (and silently not where it has none, as on some network file
 * systems).  -1 on failure. */
hid_t iohw__h5_fapl(void);

/* H5Xclose for any identifier; ignores negative ones. */
void iohw__h5_close(hid_t id);

/* Type of a dtype as stored in a file (little-endian) and in memory
 * (native).  A new identifier the caller closes; -1 on failure. */
hid_t iohw__h5_file_type(iohw_dtype dt);
hid_t iohw__h5_mem_type(iohw_dtype dt);

/* Describes a stored type for messages: "float32", "float16", "uint16",
 * "int64", "string", "compound", "float (16 bits, non-IEEE fields)", ... */
void iohw__h5_describe_type(hid_t type, char *buf, size_t n);

/* 0 when a stored dataset type holds dt exactly (class, size, float fields
 * or integer sign; bf16 is an unsigned 16-bit integer, whose `encoding`
 * attribute the caller checks); -1 with "has type X, but <who> needs Y". */
int iohw__h5_check_type(hid_t type, iohw_dtype dt, const char *who,
                        iohw_error *err);

/* 1 when loc has a link `name`, 0 when not, -1 (err set) on failure. */
int iohw__h5_has_link(hid_t loc, const char *name, iohw_error *err);

/* Opens the object a hard link `name` of loc points to and checks it is of
 * type want (H5I_GROUP or H5I_DATASET); `what` ("group", "dataset") words
 * the messages.  Returns the identifier, or -1 with the reason (missing,
 * soft or external link, wrong kind of object). */
hid_t iohw__h5_open_child(hid_t loc, const char *name, H5I_type_t want,
                          iohw_error *err);

/* --- attributes ---------------------------------------------------------- */

/* 1 when the attribute exists, 0 when not, -1 (err set) on failure. */
int iohw__h5_has_attr(hid_t loc, const char *name, iohw_error *err);

/* Reads n integers of an integer (or integer-based enum, like h5py's bool)
 * attribute: a scalar or [1] when n is 1, exactly [n] otherwise (a scalar
 * is also accepted for n = 1).  Values that do not fit int64 are errors. */
int iohw__h5_read_ints(hid_t loc, const char *name, int n, int64_t *v,
                       iohw_error *err);

/* Reads a non-negative integer attribute (uint64, or a signed one >= 0). */
int iohw__h5_read_u64(hid_t loc, const char *name, uint64_t *v,
                      iohw_error *err);

/* Reads a scalar (or [1]) string attribute, fixed or variable length, of at
 * most max characters without control characters; *s is malloc'd. */
int iohw__h5_read_string(hid_t loc, const char *name, size_t max, char **s,
                         iohw_error *err);

/* Writers: a scalar of file type I32LE / I64LE / U64LE, an I64LE array of
 * n values, and a fixed-length NUL-padded ASCII string sized to s. */
int iohw__h5_write_i32(hid_t loc, const char *name, int32_t v,
                       iohw_error *err);
int iohw__h5_write_i64(hid_t loc, const char *name, int64_t v,
                       iohw_error *err);
int iohw__h5_write_u64(hid_t loc, const char *name, uint64_t v,
                       iohw_error *err);
int iohw__h5_write_i64s(hid_t loc, const char *name, int n, const int64_t *v,
                        iohw_error *err);
int iohw__h5_write_string(hid_t loc, const char *name, const char *s,
                          iohw_error *err);

/* A scalar float32 attribute (F32LE): written, and read from a scalar or
 * [1] of a 4-byte float type. */
int iohw__h5_write_f32(hid_t loc, const char *name, float v, iohw_error *err);
int iohw__h5_read_f32(hid_t loc, const char *name, float *v, iohw_error *err);

#endif
