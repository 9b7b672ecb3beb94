/*
 * cli/import_onnx.h - what cli/import_onnx.c and cli/import_onnx_problem.c
 * share: a ConvTranspose node's attributes and its tensors' shapes into an
 * iohw problem (specification sections 1 and 12).
 */
#ifndef IOHW_CLI_IMPORT_ONNX_H
#define IOHW_CLI_IMPORT_ONNX_H

#include "cases/case.h"
#include "cli/import_onnx_pb.h"
#include "iohw/backend.h"
#include "oracle/error.h"

/* The problem of node (op_type ConvTranspose) with inputs X and W of the
 * given shapes and a bias when has_bias: explicit pads, or, with auto_pad
 * or output_shape, conv=onnx resolved by the oracle's convention.  0, or -1
 * naming the attribute or input. */
int iohw__onnx_problem(const iohw__pb_node *node, const iohw__pb_tensor *x,
                       const iohw__pb_tensor *w, int has_bias, iohw_problem *p,
                       iohw_error *err);

/* The iohw dtype of an ONNX TensorProto.DataType (FLOAT, DOUBLE, FLOAT16,
 * BFLOAT16), or 0. */
int32_t iohw__onnx_dtype_of(int32_t onnx);

/* A malloc'd copy of tensor t's count values of dt (its type must be dt's);
 * NULL with `what` and the field in the message. */
void *iohw__onnx_values_of(const iohw__pb_tensor *t, int32_t dt, int64_t count,
                           const char *what, iohw_error *err);

/* Prints whether y (ONNX's expected output, c's dtype and layout) agrees
 * with c's oracle outputs as `iohw run` judges a backend; 1, 0, or -1 when
 * out of memory. */
int iohw__onnx_judge(const iohw_case *c, const void *y, const char *where);

#endif
