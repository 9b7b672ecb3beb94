/*
 * judge/adapt.h - `iohw run --adapt-layout`: re-expressing a case in other
 * layouts, so that a backend which takes only some layouts is still tested
 * on the numbers of every case.
 *
 * The adapted case holds the same semantic tensors (x, w, bias, y, y_f64,
 * err_bound; a quantized case's int32 bias and requant values; a backward
 * case's dy like y, dx like x, dw like w and db as it is, specification
 * section 13) in the new data and weight layouts; comparison reports semantic coordinates, so a
 * mismatch reads the same either way.
 */
#ifndef IOHW_ADAPT_H
#define IOHW_ADAPT_H

#include <stddef.h>

#include "cases/case.h"
#include "oracle/error.h"

/* Candidate layouts for a rank, most common first (each one costs a
 * supports() call, which can be slow: oneDNN creates a primitive).  Data:
 * NC+spatial, N+spatial+C, C+spatial+N, CN+spatial.  Weight: IO+spatial,
 * OI+spatial, GIO+spatial, GOI+spatial, spatial+OI, spatial+IO, O+spatial+I,
 * I+spatial+O, GO+spatial+I, GI+spatial+O.  Returns the number written into
 * out[max][16] (at most max). */
int iohw_adapt_data_candidates(int rank, char (*out)[16], int max);
int iohw_adapt_weight_candidates(int rank, char (*out)[16], int max);

/* Makes *out a copy of c (every loaded tensor) with data layout xl and
 * weight layout wl.  Either may equal the case's own.  Free out with
 * iohw_case_free. */
int iohw_adapt_case(const iohw_case *c, const char *xl, const char *wl,
                    iohw_case *out, iohw_error *err);

#endif
