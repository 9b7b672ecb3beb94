/*
 * oracle/convention.h - framework padding conventions resolved into the
 * strict problem (specification section 12, docs/SPEC.md).
 *
 * A problem may say how a framework stated it: auto_pad (SAME_UPPER,
 * SAME_LOWER, VALID), a requested output shape (out_shape: ONNX
 * output_shape, PyTorch output_size, TensorFlow output_shape, MXNet
 * target_shape) and the framework whose rules apply (convention).  The
 * resolver computes, per axis, the explicit pad_begin, pad_end,
 * output_padding and out_size that framework arrives at, or fails with the
 * framework's own rule named when the framework would reject the request.
 *
 * What each framework takes as given (kept) and what it derives
 * (overwritten):
 *   onnx   output_padding given; pads derived (output_padding raised
 *          by 1 where total_padding is -1, section 12)
 *   tf     both derived (TensorFlow has no output_padding)
 *   tvm    output_padding given; pads derived
 *   torch  pad given (symmetric); output_padding derived
 *   mxnet  both derived (pad and adj from target_shape)
 */
#ifndef IOHW_CONVENTION_H
#define IOHW_CONVENTION_H

#include <stdint.h>

#include "iohw/backend.h"
#include "oracle/error.h"

/* "same_upper", "same_lower", "valid" for IOHW_AUTO_PAD_*; "none" for
 * IOHW_AUTO_PAD_NONE; NULL for any other code. */
const char *iohw_auto_pad_name(int32_t code);

/* The code of an auto_pad name (same_upper, same_lower, valid); -1 for any
 * other text (also "none", which is the absence of the key). */
int iohw_auto_pad_parse(const char *name, int32_t *code);

/* "onnx", "tf", "tvm", "torch", "mxnet" for IOHW_CONV_*; "none" for
 * IOHW_CONV_NONE; NULL for any other code. */
const char *iohw_convention_name(int32_t code);

/* The code of a convention name; -1 for any other text. */
int iohw_convention_parse(const char *name, int32_t *code);

/* Resolves p's stated convention into its explicit members (see above):
 * in_size, kernel, stride and dilation must be >= 1 on the first rank
 * axes.  A problem without a convention (IOHW_CONV_NONE) must have auto_pad
 * NONE and out_shape 0, and is left as it is.  out_size is set by the
 * section 1 formula.  0, or -1 with the framework's rule in the message. */
int iohw_convention_resolve(iohw_problem *p, iohw_error *err);

/* 0 when p's explicit members are what its convention resolves to (always
 * for a problem without one); -1 naming the first member that differs. */
int iohw_convention_check(const iohw_problem *p, iohw_error *err);

#endif
