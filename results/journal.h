/*
 * results/journal.h - the run journal: results appended as they arrive, so a
 * killed run can be resumed (`iohw run --journal F --resume`).
 *
 * Format: JSON lines (UTF-8), one result record per line, in the form of
 * results/record.h (the codec the JSON report and the worker use too).  A
 * result is identified by (file, id).
 *
 * A line that does not parse (typically the last one, cut short when a run
 * was killed) is ignored with a warning.
 */
#ifndef IOHW_JOURNAL_H
#define IOHW_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "results/record.h"
#include "results/result.h"
#include "oracle/error.h"

/* Writes r as one JSON line ending in '\n' (NUL-terminated).  Returns the
 * length, or -1 when n is too small (iohw_record_size(r) + 1 always
 * suffices). */
int iohw_journal_format(const iohw_result *r, char *buf, size_t n);

/* Parses one line (without or with its '\n') into r; 0, or -1 with the
 * reason (iohw_record_decode's). */
int iohw_journal_parse(const char *line, iohw_result *r, iohw_error *err);

/* Reads every result of a journal, in file order (a later line for the same
 * (file, id) is kept after an earlier one; callers take the last).  A missing
 * file is an empty journal.  Lines that do not parse are skipped; each is
 * reported on warn (when not NULL) as "PATH:LINE: ..., ignored" and counted
 * in *skipped (when not NULL).  *items is malloc'd (NULL when *count is 0).
 * Fails only when the file exists but cannot be read. */
int iohw_journal_read(const char *path, iohw_result **items, int64_t *count,
                      FILE *warn, int64_t *skipped, iohw_error *err);

typedef struct iohw_journal iohw_journal;

/* Opens a journal for writing: append = 0 truncates, 1 appends (first
 * ending a line cut short, so that new lines stay whole). */
iohw_journal *iohw_journal_open(const char *path, int append, iohw_error *err);
/* Appends one line and flushes it. */
int iohw_journal_append(iohw_journal *j, const iohw_result *r, iohw_error *err);
/* Closes; -1 when a write failed. */
int iohw_journal_close(iohw_journal *j, iohw_error *err);

#endif
