/*
 * oracle/error.h - the error value every iohw module fills in.
 *
 * Functions that can fail take an `iohw_error *err` (which may be NULL when
 * the caller does not want the text), return 0 on success and -1 on failure,
 * and on failure leave a one-line message in err->msg that names the thing
 * that was wrong (a file, a case, a token, an argument).  The message lives
 * as long as the iohw_error that holds it.
 */
#ifndef IOHW_ERROR_H
#define IOHW_ERROR_H

#include <stddef.h>

/* Room for four whole paths (PATH_MAX, 4096 bytes each) and the words
 * around them: a message names a few things, and names them whole.  A
 * message that would still be longer ends in "..." (iohw_error_set), so
 * that a cut text never passes for a whole one. */
#define IOHW_ERROR_MAX (4 * 4096 + 1024)

typedef struct iohw_error {
    char msg[IOHW_ERROR_MAX];
} iohw_error;

/* Sets err->msg from a printf format; returns -1 so callers can
 * `return iohw_error_set(err, ...);`.  err may be NULL. */
int iohw_error_set(iohw_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Puts "prefix: " in front of the current message; returns -1. */
int iohw_error_prefix(iohw_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
