/*
 * harness/listing.h - which cases a run covers: suite directories and case
 * files expanded into a list of (file, case id), with --filter and --shard
 * applied.
 *
 * A directory stands for its *.h5 files (not its sub-directories), in byte
 * order of their names; a file stands for itself.  Each file's cases are read
 * with IOHW_READ_ATTRS (no tensors) so that the filter can see them.  A file
 * that cannot be opened, or a case whose attributes cannot be read, is not an
 * error of the run: it becomes an entry with `invalid` set (the reader's
 * message), which the run reports as INVALID while the other cases go on.
 * Each file is listed in a guarded child process (sandbox/guard.h: a time
 * limit and a memory limit), so a file that crashes the HDF5 library
 * itself, makes it loop or asks for more memory than the limit also becomes
 * one INVALID entry.  (Test builds can make the child listing PATH crash
 * or hang: sandbox/test_hook.h, point "read".)
 */
#ifndef IOHW_LISTING_H
#define IOHW_LISTING_H

#include <stdint.h>

#include "cases/case.h"
#include "harness/filter.h"
#include "sandbox/guard.h"
#include "oracle/error.h"

typedef struct iohw_listing_entry {
    char id[IOHW_CASE_ID_MAX];  /* "" for a file that cannot be opened */
    int file;                   /* index into iohw_listing.files */
    char *descriptor;           /* malloc'd, "" when unknown */
    char *tags;                 /* malloc'd, "" when unknown */
    char *invalid;              /* NULL, or why the entry is INVALID */
} iohw_listing_entry;

typedef struct iohw_listing {
    char **files;               /* malloc'd paths, in run order */
    int nfiles;
    iohw_listing_entry *entries;  /* file order, then the file's id order */
    int64_t count;
} iohw_listing;

/* Expands inputs into a suite.  filter may be NULL; a case whose attributes
 * cannot be read is matched on its id alone (its other attributes read as
 * zero and empty).  Sharding hashes the case id (the file's path for an
 * entry standing for a whole unreadable file).  Fails, with the path and the
 * reason, when there is no input, an input does not exist or cannot be read,
 * or a directory holds no *.h5 file. */
int iohw_listing_build(const char *const *inputs, int ninputs,
                       const iohw_filter *filter, int shard_index,
                       int shard_count, iohw_listing *s, iohw_error *err);

/* The same, each file listed under lim (NULL, as iohw_listing_build
 * passes: each file under its own iohw_guard_read_limits(path)). */
int iohw_listing_build_limited(const char *const *inputs, int ninputs,
                               const iohw_filter *filter, int shard_index,
                               int shard_count, const iohw_guard_limits *lim,
                               iohw_listing *s, iohw_error *err);

void iohw_listing_free(iohw_listing *s);

#endif
