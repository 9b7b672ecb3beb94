/*
 * cases/answer.h - reading the answer a program left in an HDF5 file for
 * one problem (the exec protocol's OUT.h5, docs/EXEC_PROTOCOL.md).
 *
 * The file holds a root string attribute `unsupported` (the program's
 * reason for not claiming the problem), or the direction's output
 * (specification section 13) as root datasets, or as datasets of the case
 * in /cases (a case file; <id> is the expected id, or any id when /cases
 * holds one case): forward y (data layout order, C = C_out); BWD_D dx
 * (data layout order, C = C_in); BWD_W dw (weight layout order) and, when
 * has_bias, db ([C_out]).  Each has the stored type of the problem's y
 * dtype (bf16: uint16 with the attribute encoding = "bf16"; quantized,
 * section 11.4: int8, uint8 or int32); type and shape are checked before a
 * byte is read.
 */
#ifndef IOHW_ANSWER_H
#define IOHW_ANSWER_H

#include "iohw/backend.h"
#include "oracle/error.h"

#include <stdint.h>

/* The words before the shape a forward answer returned in the error of
 * iohw_answer_read's 2: "...: returned shape 1x1x4x4 where the case's y is
 * 1x1x5x5 (NCHW)", followed by "; its values were not kept" when they
 * were not (specification section 3.5). */
#define IOHW_ANSWER_SHAPE_WORDS "returned shape "

/* The returned shape named in text (after IOHW_ANSWER_SHAPE_WORDS) into
 * dims (at most max extents): their number, negated when the text says
 * the values were not kept; 0 when text names none. */
int iohw_answer_shape_parse(const char *text, int64_t *dims, int max);

/* Reads the answer in path for problem p.  Returns 1 when the file says
 * `unsupported`, with *why (malloc'd, possibly "") its reason; 0 when the
 * output was read into y (need_y; iohw_problem_out_count elements, db
 * right after dw) or nothing more was wanted (!need_y); 2 when a forward
 * y has the problem's rank and type but another shape: err names both
 * shapes (IOHW_ANSWER_SHAPE_WORDS) and, when its element count is at most
 * the problem's, its values are in y's first elements, densely, in the
 * data layout's order of its own shape (the rest of y untouched); -1 when the
 * file cannot be opened or holds no well-formed answer (err names the file
 * and the missing or malformed dataset).  id is the case id expected under
 * /cases. */
int iohw_answer_read(const char *path, const iohw_problem *p, const char *id,
                     int need_y, void *y, char **why, iohw_error *err);

#endif
