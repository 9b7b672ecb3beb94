/*
 * backends/faults/fault_quant.h - the quantized side of the seeded-fault
 * backends (specification section 11): a quantized problem of the ABI
 * (dtype IOHW_S8 or IOHW_U8, the quantization members, the requant
 * tensor) read as the oracle takes it, with x, w and y moved between the
 * problem's layouts and the canonical order.  A quantized fault's
 * compute_quant hook gets this work and writes the canonical y; like the
 * float faults, it perturbs the parameters or the inputs and calls the
 * oracle (oracle/quant.h) rather than re-implementing the operation.
 */
#ifndef IOHW_FAULT_QUANT_H
#define IOHW_FAULT_QUANT_H

#include <stdint.h>

#include "iohw/backend.h"
#include "oracle/error.h"
#include "oracle/quant.h"

typedef struct fault_qwork {
    const iohw_problem *given; /* the problem as the host gave it */
    iohw_problem p;            /* float dtype code, canonical layouts */
    iohw_quant q;              /* arrays point into the requant tensor */
    uint8_t *x, *w;            /* canonical x[N][C_in][L...], w[C_in][Mg][K...] */
    const int32_t *bias;       /* [C_out], or NULL */
    const void *w_given;       /* w as the host gave it (its layout) */
    int64_t ny, OV;            /* y's elements, positions per channel */
    size_t y_size;             /* bytes of one y element: 1, or 4 for s32 */
} fault_qwork;

/* 1 when p is a quantized problem (long enough, dtype s8 or u8). */
int iohw__fault_is_quant(const iohw_problem *p);

/* 0 when the quantized problem p is valid (its arrays are not checked:
 * supports() does not see them); otherwise the reason. */
int iohw__fault_quant_check(const iohw_problem *p, iohw_error *err);

/* The work of one run_quant call: canonical copies of x and w.  Free with
 * iohw__fault_qwork_free. */
int iohw__fault_qwork_init(fault_qwork *fw, const iohw_problem *p, const void *x,
                           const void *w, const void *bias, const void *requant,
                           iohw_error *err);
void iohw__fault_qwork_free(fault_qwork *fw);

/* Canonical y (q.y_dtype elements) -> y in the problem's data layout. */
int iohw__fault_qstore(const fault_qwork *fw, const void *yc, void *y, iohw_error *err);

/* The accumulators, exactly (the oracle with an s32 output), of x and w
 * with the zero points of fw->q, with or without the bias: acc[ny], in
 * int64 (iohw_quant_accumulate: past 2^31 too).  0, or -1 with the
 * reason. */
int iohw__fault_qacc(const fault_qwork *fw, const void *x, const void *w, int with_bias,
                     int64_t *acc, iohw_error *err);

/* y[i] := v stored in the output type, saturated (wrap = 0) or wrapped
 * to 8 bits (wrap = 1). */
void iohw__fault_qput(const fault_qwork *fw, void *y, int64_t i, int64_t v, int wrap);

#endif
