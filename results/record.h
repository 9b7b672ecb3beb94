/*
 * results/record.h - the one codec of the result record (results/result.h's
 * iohw_result): the journal's lines, the JSON report's per-case objects and
 * the worker's reply all hold the record in this form.
 *
 * Form: one JSON object on one line (UTF-8, no raw newline), members in this
 * order, spaced as the JSON report always was:
 *
 *   {"id": "ct2d.0001", "file": "suite/a.h5", "descriptor": "n=1 ...",
 *    "tags": "rank2,f32", ["direction": "BWD_W",] "status": "FAIL",
 *    "message": "...",
 *    "diagnosis": "...", "warnings": "...", "exact": false,
 *    "elements": 480, "mismatches": 12, "unwritten": 0,
 *    "worst_ratio": 3.5e+05, "seconds": 0.000123,
 *    ["repeat": 5, "time_ms": 0.123, "time_min_ms": 0.119, "gmacs": 1.9,
 *     ["ref_time_ms": 4.1, "ratio": 33.3,]]
 *    "points": [{"index": 7, "coord": [0, 1, 0, 2, 3], "expected": 1.5,
 *                "got": 2, "bound": 1.2e-06}],
 *    "errmap": [0,0,3,...]}
 *
 * Strings are escaped per RFC 8259 (\" \\ \n \t ... and \u00XX for other
 * control characters; "</" as "<\/" and U+2028, U+2029 as \u escapes, so a
 * record can sit inside an HTML <script>); bytes that are not valid UTF-8
 * become U+FFFD.  Texts are written whole, whatever their length.  Numbers JSON cannot hold are the strings "inf",
 * "-inf", "nan"; doubles have 17 significant digits and read back exactly.
 * "errmap" (the 256 bins, row-major) is written only when some bin is
 * non-zero; the timing of a performance run ("repeat" to "gmacs") only when
 * repeat > 0, and "ref_time_ms", "ratio" only when the reference was timed
 * (ref_time_ms > 0): records of other runs read and write as before;
 * "direction" only for a backward result (specification section 13).  These are the forms of the JSON report's per-case objects
 * (docs/REPORT_FORMAT.md, version 1), so a report stays readable by the
 * versions before the codec.  "id" is "" for a file that could not be opened.
 *
 * The decoder is strict about what it uses and lenient about what it does
 * not: members it does not know are skipped (the JSON report adds
 * "category", "repro", "wall"), null reads as the member's default, and the
 * forms of older journals ("exact" as 0 or 1, "errmap" as 512 hex digits)
 * are accepted.  Every value is checked before it is
 * stored: strings are kept whole (never cut), statuses must be
 * known, counts >= 0, point indices and coordinates in [0, 2^31) (no tensor
 * is larger, oracle/problem.h), errmap bins in [0, 255]; the error names the
 * member ("member 'points'[2].coord[3]: -1 outside [0, 2147483647]").
 */
#ifndef IOHW_RECORD_H
#define IOHW_RECORD_H

#include <stddef.h>

#include "results/result.h"
#include "oracle/error.h"

/* The bytes text s reads back as once encoded: each byte that is not
 * valid UTF-8 becomes U+FFFD (three bytes). */
size_t iohw__record_text_len(const char *s);

/* A bound on the length of r's encoding, NUL included (every text byte
 * escaped at six bytes, plus the numbers and names). */
size_t iohw_record_size(const iohw_result *r);

/* Encodes r as one JSON object (no newline) into buf (n bytes, NUL
 * terminated).  Returns the length, or -1 when n is too small (buf then
 * holds "" when n > 0).  The last byte is always '}'. */
int iohw_record_encode(const iohw_result *r, char *buf, size_t n);

/* The same, into a malloc'd string; NULL when memory runs out. */
char *iohw_record_encode_alloc(const iohw_result *r);

/* Decodes one record from text (len bytes; surrounding white space allowed,
 * nothing else after the object).  "id" and "status" are required.  0, or
 * -1 with the reason naming the member; *r is made by iohw_result_init
 * first either way. */
int iohw_record_decode(const char *text, size_t len, iohw_result *r,
                       iohw_error *err);

#endif
