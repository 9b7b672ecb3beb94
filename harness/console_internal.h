/*
 * harness/console_internal.h - pieces of the console (console.h) kept in
 * their own files.
 */
#ifndef IOHW_CONSOLE_INTERNAL_H
#define IOHW_CONSOLE_INTERNAL_H

#include <stdio.h>

#include "results/result.h"

/* The table of r's first mismatches (none when r has no points): forward
 * y's (n, c, d, h, w); a backward case's naming dx, dw or db on each row
 * with that tensor's coordinates (specification section 13). */
void iohw__console_points(FILE *out, const iohw_result *r);

#endif
