/*
 * cli/import_onnx_values.c - the tensors of `iohw import onnx`: an ONNX
 * TensorProto's values in an iohw dtype, and ONNX's expected output judged
 * as a backend's output is (specification section 3.3).
 */
#include "cli/import_onnx.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "judge/compare.h"
#include "oracle/dtype.h"

/* A tensor's element count from its dims (-1 on overflow past 2^31). */
static int64_t count_of(const iohw__pb_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndims; i++)
        if (__builtin_mul_overflow(n, t->dims[i], &n) || n > ((int64_t)1 << 31))
            return -1;
    return n;
}

/* ONNX's TensorProto.DataType of each iohw float dtype (IOHW_F32 ..
 * IOHW_BF16): FLOAT 1, DOUBLE 11, FLOAT16 10, BFLOAT16 16. */
static const int32_t ONNX_TYPE[] = {0, 1, 11, 10, 16};

/* The iohw dtype of an ONNX tensor type, or 0. */
int32_t iohw__onnx_dtype_of(int32_t onnx)
{
    for (int32_t d = IOHW_F32; d <= IOHW_BF16; d++)
        if (ONNX_TYPE[d] == onnx)
            return d;
    return 0;
}

/* A copy of tensor t's values, `count` of dt; NULL on failure. */
void *iohw__onnx_values_of(const iohw__pb_tensor *t, int32_t dt, int64_t count, const char *what,
                       iohw_error *err)
{
    const size_t es = iohw_dtype_size((iohw_dtype)dt);
    if (count_of(t) != count) {
        iohw_error_set(err, "%s: dims give %" PRId64 " elements, the problem %" PRId64, what,
                       count_of(t), count);
        return NULL;
    }
    if (t->data_type != ONNX_TYPE[dt]) {
        iohw_error_set(err, "%s: TensorProto.data_type = %" PRId32 ", but X's is %" PRId32
                       " (X, W, B and Y share one type)", what, t->data_type, ONNX_TYPE[dt]);
        return NULL;
    }
    void *v = malloc((size_t)(count > 0 ? count : 1) * es);
    if (v == NULL) {
        iohw_error_set(err, "%s: out of memory", what);
        return NULL;
    }
    if ((dt == IOHW_F32 ? iohw__pb_tensor_floats(t, v, count, err)
                        : iohw__pb_tensor_raw(t, es, v, count, err)) != 0) {
        free(v);
        iohw_error_prefix(err, "%s", what);
        return NULL;
    }
    return v;
}

/* The judge's verdict (specification section 3.3) on ONNX's expected
 * output y as if a backend had returned it. */
int iohw__onnx_judge(const iohw_case *c, const void *y, const char *where)
{
    iohw_result *r = calloc(1, sizeof *r);
    if (r == NULL)
        return -1;
    iohw_result_init(r);
    iohw_compare_float(c, y, NULL, r);
    const int agrees = r->status == IOHW_RESULT_PASS;
    if (agrees)
        printf("%s: %s: agrees (%" PRId64 " elements, worst |ONNX - y_f64| / (u * "
               "err_bound) %.3g)\n", where, c->id, r->elements, r->worst_ratio);
    else if (r->npoints > 0)
        printf("%s: %s: DISAGREES in %" PRId64 " of %" PRId64 " elements, first at "
               "element %" PRId64 ": ONNX %.9g, oracle %.17g, bound %.3g\n", where, c->id,
               r->mismatches, r->elements, r->points[0].index, r->points[0].got,
               r->points[0].expected, r->points[0].bound);
    else
        printf("%s: %s: DISAGREES: %s\n", where, c->id, r->message);
    free(r);
    return agrees;
}
