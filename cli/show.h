/*
 * cli/show.h - what `iohw show`'s files share (cmd_show.c,
 * show_backward.c).
 */
#ifndef IOHW_CLI_SHOW_H
#define IOHW_CLI_SHOW_H

#include <stdint.h>

#include "cases/case.h"
#include "oracle/layout.h"

/* Values printed of each tensor before "...". */
#define IOHW__SHOW_FIRST 8

/* Prints "name [d0, d1, ...] LAYOUT type". */
void iohw__show_shape(const char *name, const iohw_layout_map *m,
                      const char *type);

/* First values and statistics of a tensor of n elements of dt. */
void iohw__show_values(const char *name, iohw_dtype dt, const void *base,
                       int64_t n, int digits);

/* The line "direction: BWD_WB (dw and db from x and dy)" of a backward
 * case (nothing for a forward one; specification section 13). */
void iohw__show_direction(const iohw_problem *p);

/* A backward case's datasets and values: its direction's inputs (dy and
 * x or w) and, with has_outputs, its outputs (dx..., or dw... and db...). */
void iohw__show_backward(const iohw_case *c, int has_outputs);

/* `iohw show DIR` (show_suite.c): the suite's cases counted by file, rank,
 * dtype, fill and tag, and its manifest checked; 0, or -1 with the reason
 * printed. */
int iohw__show_suite(const char *dir);

#endif
