/*
 * harness/journal.h - the run journal: results appended as they arrive, so a
 * killed run can be resumed (`iohw run --journal F --resume`).
 *
 * Format: JSON lines (UTF-8), one object per result, one line per object,
 * every member of iohw_result:
 *
 *   {"id":"ct2d.0001","file":"suite/a.h5","descriptor":"n=1 ...",
 *    "tags":"rank2,f32","status":"FAIL","message":"...","diagnosis":"...",
 *    "exact":0,"elements":480,"mismatches":12,"unwritten":0,
 *    "worst_ratio":3.5e+05,"seconds":0.000123,
 *    "points":[{"index":7,"coord":[0,1,0,2,3],"expected":1.5,"got":2,
 *               "bound":1.2e-06}]}
 *
 * Strings are escaped per RFC 8259 (\" \\ \n \t ... and \u00XX for other
 * control characters); bytes that are not valid UTF-8 are written as
 * U+FFFD.  Numbers that JSON cannot hold are strings: "inf", "-inf", "nan".
 * Doubles are written with 17 significant digits, so they read back exactly.
 * "id" is "" for a file that could not be opened at all.  Readers ignore
 * members they do not know; a result is identified by (file, id).
 *
 * A line that does not parse (typically the last one, cut short when a run
 * was killed) is ignored with a warning.
 */
#ifndef IOHW_JOURNAL_H
#define IOHW_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/result.h"
#include "oracle/error.h"

/* Longest line iohw_journal_format can write (every string escaped at six
 * bytes per byte, plus the numbers). */
#define IOHW_JOURNAL_LINE_MAX 32768

/* Writes r as one JSON line ending in '\n' (NUL-terminated).  Returns the
 * length, or -1 when n is too small. */
int iohw_journal_format(const iohw_result *r, char *buf, size_t n);

/* Parses one line (without or with its '\n') into r; 0, or -1 with the
 * reason (not JSON, cut short, a member of the wrong type, a missing id,
 * file or status, an unknown status). */
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
