/*
 * oracle/dtype.h - element types: names, sizes, unit roundoff and exact
 * conversions between double and f32, f16 (IEEE binary16) and bf16.
 *
 * Every conversion from double rounds once, to nearest with ties to even,
 * straight from the double (never through float, which would round twice).
 * Overflow gives the signed infinity, NaN stays NaN (quiet), subnormals of
 * the target type are produced and read exactly.
 */
#ifndef IOHW_DTYPE_H
#define IOHW_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "iohw/backend.h"

/* Bytes per element: 4, 8, 2, 2 (f32, f64, f16, bf16), 1, 1, 4 (s8, u8,
 * s32); 0 for a value outside the enum. */
size_t iohw_dtype_size(iohw_dtype dt);

/* "f32", "f64", "f16", "bf16", "s8", "u8", "s32"; "?" for a value outside
 * the enum. */
const char *iohw_dtype_name(iohw_dtype dt);

/* Parses a dtype name; returns 0 and sets *dt, or -1 for an unknown name. */
int iohw_dtype_parse(const char *name, iohw_dtype *dt);

/* 1 for the float types f32, f64, f16, bf16 (the only ones the rest of
 * this header converts, iohw_dtype_load and iohw_dtype_store aside), 0 for
 * the integer types and unknown codes. */
int iohw_dtype_is_float(iohw_dtype dt);

/* Unit roundoff u: 2^-24, 2^-53, 2^-11, 2^-8. */
double iohw_dtype_unit_roundoff(iohw_dtype dt);

/* binary16 and bfloat16 bit patterns. */
uint16_t iohw_f16_from_double(double v);
double iohw_f16_to_double(uint16_t bits);
uint16_t iohw_bf16_from_double(double v);
double iohw_bf16_to_double(uint16_t bits);

/* v rounded to the nearest value of dt, returned as a double. */
double iohw_dtype_round(iohw_dtype dt, double v);

/* Element i of an array of dt, as a double (exact; also for s8, u8 and
 * s32). */
double iohw_dtype_load(iohw_dtype dt, const void *base, size_t i);

/* Stores v rounded to dt as element i of an array of dt (s8, u8, s32:
 * rounded to nearest, ties to even, and saturated). */
void iohw_dtype_store(iohw_dtype dt, void *base, size_t i, double v);

/* Whole-array conversions (n elements). */
void iohw_dtype_to_double(iohw_dtype dt, const void *src, double *dst, size_t n);
void iohw_dtype_from_double(iohw_dtype dt, const double *src, void *dst, size_t n);

#endif
