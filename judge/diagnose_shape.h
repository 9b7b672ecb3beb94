/*
 * judge/diagnose_shape.h - naming the misread problem behind an output of
 * the wrong shape (specification section 3.5).
 *
 * A library that misreads one parameter of the problem computes another
 * problem, with another output shape: dilation ignored gives 4x4 where 5x5
 * is right.  Given the shape a backend returned (an exec program's OUT.h5)
 * or the count of leading elements it wrote densely into the y the harness
 * sized (a shared object whose adapter copied a smaller output), each
 * misreading of the list below whose problem has that shape is a
 * candidate; where the misread problem has the case's own x, w and bias,
 * its oracle is run and the returned values compared with it within the
 * bound of specification section 3.  A misreading is named only when the
 * values prove it (they match its oracle, and no other candidate's);
 * otherwise the diagnosis states the facts (the shape, and which misread
 * problems have it) and claims no cause.
 */
#ifndef IOHW_DIAGNOSE_SHAPE_H
#define IOHW_DIAGNOSE_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "cases/case.h"

/* Number of shape misreadings tried and the name of each ("dilation
 * ignored", ...), for docs and tests; NULL outside the list. */
int iohw_diagnose_shape_count(void);
const char *iohw_diagnose_shape_name(int i);

/* The problem a backend computes under shape misreading i: 1 with *q set
 * (its out_size recomputed by the formula of specification section 1) and
 * *values 1 when the case's x, w and bias are its inputs as they are (so
 * that its oracle can be run), 0 when the misreading does not apply to p
 * (nothing to misread, or no output). */
int iohw_diagnose_shape_problem(const iohw_problem *p, int i, iohw_problem *q,
                                int *values);

/* 1 when y (q's output count of elements, of y's type) is the output of
 * q, the misread problem, on the case's inputs (diagnose_shape_values.c):
 * within the case's own rule for a float case, equal for a quantized one;
 * 0 when not, -1 when q's oracle could not run. */
int iohw__shape_values_match(const iohw_case *c, const iohw_problem *q, const void *y,
                             const void *sentinel_bits);

/* What iohw_diagnose_shape found. */
enum {
    IOHW_SHAPE_NONE = 0,    /* nothing said (buf "") */
    IOHW_SHAPE_FACTS = 1,   /* the shape and its candidates, no cause */
    IOHW_SHAPE_PROVEN = 2   /* one misreading named: its values match */
};

/* Diagnoses a forward float case's output of the wrong shape into buf; a
 * quantized case's too when dims are given (its values, of y_dtype, match
 * a misread problem's only when equal to its exact oracle's).
 * dims[ndim]: the shape returned, in the data layout's order; ndim 0 when
 * it is unknown, and then the output is y's leading elements before a
 * tail still holding the harness's sentinel (sentinel_bits, or, NULL, the
 * signalling NaN y's last element holds), and only a proven misreading
 * is named.  y (when not NULL) holds the returned values densely, in the
 * data layout's order of the returned shape (all of dims' elements); y
 * NULL: the shape alone.  c needs its inputs. */
int iohw_diagnose_shape(const iohw_case *c, const void *y,
                        const void *sentinel_bits, const int64_t *dims,
                        int ndim, char *buf, size_t n);

#endif
