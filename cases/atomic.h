/*
 * cases/atomic.h - writing a file under a temporary name in its folder and
 * renaming it into place once complete, so that a crash, a kill or a failed
 * write never leaves a partial file under the real name nor clobbers an
 * existing one.  Case files, suite manifests and reports are written so.
 */
#ifndef IOHW_ATOMIC_H
#define IOHW_ATOMIC_H

#include <stddef.h>
#include <stdio.h>

#include "oracle/error.h"

/* Creates an empty temporary file next to path ("PATH.tmp-XXXXXX", mode
 * 0666 less the umask) and puts its name in tmp (n bytes): the name to
 * write.  When path exists and is not a regular file (a device such as
 * /dev/null, a FIFO) tmp is path itself, written in place and never
 * replaced.  0, or -1 with "PATH: reason". */
int iohw_atomic_create(const char *path, char *tmp, size_t n, iohw_error *err);

/* The same, opened for writing ("w"); NULL with the reason. */
FILE *iohw_atomic_fopen(const char *path, char *tmp, size_t n, iohw_error *err);

/* Renames tmp to path (replacing it; nothing when tmp is path); on failure
 * removes tmp.  0, or -1 with "PATH: reason". */
int iohw_atomic_commit(const char *tmp, const char *path, iohw_error *err);

/* Removes tmp (a write that failed), unless it is path itself. */
void iohw_atomic_abandon(const char *tmp, const char *path);

/* Closes f (from iohw_atomic_fopen), then commits when ok and the close
 * worked, else abandons.  0, or -1 (with the reason, unless !ok: the
 * caller's own error stands). */
int iohw_atomic_fclose(FILE *f, int ok, const char *tmp, const char *path,
                       iohw_error *err);

#endif
