/*
 * cli/import_onnx.h - what cli/import_onnx.c and cli/import_onnx_problem.c
 * share: a ConvTranspose node's attributes and its tensors' shapes into an
 * iohw problem (specification sections 1 and 12).
 */
#ifndef IOHW_CLI_IMPORT_ONNX_H
#define IOHW_CLI_IMPORT_ONNX_H

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

#endif
