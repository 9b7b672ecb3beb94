/*
 * tests/support/hostile_cases.h - hostile case files made by code, for the
 * tests (test_cases_guarded.c) and the fuzz seeds (tests/fuzz): each takes
 * a valid case file holding the base case (rank 2, NCHW / IOHW, C_in 10,
 * C_out 15, in 4x3, kernel 5x5, bias; tests/test_cases_break.h) under id
 * and breaks it in place.  0, or -1 when an HDF5 call failed.
 */
#ifndef IOHW_TEST_HOSTILE_CASES_H
#define IOHW_TEST_HOSTILE_CASES_H

#include <stdint.h>

/* The case's tags become a variable-length string (in the file's global
 * heap) and the size of the heap's first object 0xff..: libhdf5 1.10.8
 * then loops for ever in H5HG_read when it reads the attribute. */
int iohw_test_hostile_heap_loop(const char *path, const char *id);

/* output_padding makes the W axis 2^24 + 7 long, out_size follows, and y
 * is deleted (a few KB that once cost 8 bytes per output element of that
 * axis before the missing dataset was noticed). */
int iohw_test_hostile_wide_padding(const char *path, const char *id);

/* in_size 4 x width, out 8 x (width + 4), terms_max to match, and x, y,
 * y_f64, err_bound re-created as f64 datasets of those shapes that are
 * never written (they store nothing); the base case must be f64.  width
 * 559236: y holds 2^26 elements; 17895693: 2^31 - 8. */
int iohw_test_hostile_unwritten(const char *path, const char *id, int64_t width);

#endif
