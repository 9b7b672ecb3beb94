/*
 * iohw/backend.h - the backend ABI, version 1.
 *
 * A backend is a shared object that exports exactly one symbol:
 *
 *     const iohw_backend *iohw_backend_entry(uint32_t host_abi_version);
 *
 * The host passes the ABI version it was built with (IOHW_ABI_VERSION).  The
 * backend returns a pointer to a table that lives as long as the shared object
 * stays loaded, or NULL when it cannot serve that host version.  The table's
 * first member is always the ABI version the backend implements and its second
 * member the size of the table in bytes; later versions only append members, so
 * a host reads no member past struct_size.  The rules that let a host and a
 * backend built years apart agree are written out at iohw_problem and
 * iohw_backend below, and in section 5 of the specification (docs/SPEC.md).
 *
 * Semantics (strict IOHW, see the iohw specification section 1 in
 * docs/SPEC.md): with
 * Cg = C_in / G and Mg = C_out / G,
 *
 *     y[n, g*Mg + m, o] = bias[g*Mg + m]
 *         + sum over c < Cg and all (i, k) with i*S + k*dil - pad_begin = o
 *               x[n, g*Cg + c, i] * w[g*Cg + c, m, k]
 *
 * where the weight's I axis spans the transposed convolution's own input
 * channels and its O axis the output channels of one group.
 *
 * Ownership: the host allocates and frees every tensor.  A backend must not
 * free, keep or write to x, w or bias (they may be mapped read-only), and must
 * write every element of y.  Pointers handed to run() are valid only during
 * that call.
 */
#ifndef IOHW_BACKEND_H
#define IOHW_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes. */
#define IOHW_ABI_VERSION 1u

/* Marks the entry point a backend exports. */
#if defined(_WIN32)
#define IOHW_EXPORT __declspec(dllexport)
#else
#define IOHW_EXPORT __attribute__((visibility("default")))
#endif

/*
 * Status codes returned by init(), supports() and run(), as one table:
 * XX(NAME, code, meaning) gives IOHW_<NAME> = code.  Codes are never reused
 * or renumbered; a later version may append a code, so a host treats a code
 * it does not know as a failure of the backend.
 */
#define IOHW_STATUS_MAP(XX)                                                   \
    XX(OK, 0, "done")                                                         \
    XX(UNSUPPORTED, 1, "the backend does not claim this problem")             \
    XX(INVALID_PROBLEM, 2, "the problem itself is malformed")                 \
    XX(OUT_OF_MEMORY, 3, "the backend could not allocate")                    \
    XX(BACKEND_ERROR, 4, "anything else; see last_error()")                   \
    XX(INCOMPATIBLE_ABI, 5, "the host's ABI version cannot be served")

#define IOHW__STATUS_ENUM(name, code, meaning) IOHW_##name = code,
typedef enum iohw_status {
    IOHW_STATUS_MAP(IOHW__STATUS_ENUM)
} iohw_status;
#undef IOHW__STATUS_ENUM

/* Element types: the codes of iohw_problem.dtype.  The type is a fixed-width
 * integer, not an enum, so that its size never depends on the compiler.
 * f16 and bf16 tensors hold 16-bit patterns (uint16_t). */
typedef int32_t iohw_dtype;
enum {
    IOHW_F32 = 1,
    IOHW_F64 = 2,
    IOHW_F16 = 3,
    IOHW_BF16 = 4,
    IOHW_S8 = 5,    /* int8_t; quantized, specification section 11 */
    IOHW_U8 = 6,    /* uint8_t; quantized */
    IOHW_S32 = 7    /* int32_t; only as y_dtype (no requantization) */
};

/* R, the rounding of a quantized problem's requantization (iohw_problem.
 * rounding; specification section 11.3).  0 in a float problem. */
enum {
    IOHW_ROUND_HALF_EVEN = 1,
    IOHW_ROUND_HALF_AWAY = 2,
    IOHW_ROUND_HALF_UP = 3,
    IOHW_ROUND_GEMMLOWP = 4   /* TFLite's double rounding; fixed form only */
};

/* The form of the requantization multiplier M (iohw_problem.m_form;
 * specification section 11.2).  0 in a float problem. */
enum {
    IOHW_QM_SCALES = 1,  /* M = s_x * s_w[oc] / s_y, exact rational */
    IOHW_QM_FIXED = 2    /* M = multiplier[oc] * 2^(shift[oc] - 31) */
};

/* Framework padding conventions (iohw_problem.auto_pad and .convention;
 * specification section 12).  The explicit members (pad_begin, pad_end,
 * output_padding, out_size) always hold the resolved strict problem; these
 * only say how a framework would have stated it. */
enum {
    IOHW_AUTO_PAD_NONE = 0,        /* explicit pads */
    IOHW_AUTO_PAD_SAME_UPPER = 1,
    IOHW_AUTO_PAD_SAME_LOWER = 2,
    IOHW_AUTO_PAD_VALID = 3
};
enum {
    IOHW_CONV_NONE = 0,
    IOHW_CONV_ONNX = 1,
    IOHW_CONV_TF = 2,
    IOHW_CONV_TVM = 3,
    IOHW_CONV_TORCH = 4,
    IOHW_CONV_MXNET = 5
};

/* The direction of a problem (iohw_problem.direction; specification
 * section 13): which of the three kernels of a transposed-convolution layer
 * computes what.  With has_bias they give benchdnn's five names:
 *   IOHW_DIR_FWD    y  from x, w (and bias):  FWD_D (no bias), FWD_B;
 *   IOHW_DIR_BWD_D  dx from dy and w:         BWD_D (has_bias is 0);
 *   IOHW_DIR_BWD_W  dw from x and dy, and db when has_bias:
 *                                             BWD_W (no bias), BWD_WB.
 * dy has y's shape (data layout, C = C_out), dx x's (data layout, C =
 * C_in), dw w's (weight layout), db bias's ([C_out]). */
enum {
    IOHW_DIR_FWD = 0,
    IOHW_DIR_BWD_D = 1,
    IOHW_DIR_BWD_W = 2
};

/* The end of a member, in bytes from the start of its struct. */
#define IOHW_MEMBER_END(type, member) \
    (offsetof(type, member) + sizeof(((type *)0)->member))

/* 1 when the struct at ptr (an iohw_problem or an iohw_backend) is long
 * enough to hold member, by its struct_size: read an appended member only
 * when this holds, and take it as absent otherwise. */
#define IOHW_HAS_MEMBER(ptr, type, member) \
    ((size_t)(ptr)->struct_size >= IOHW_MEMBER_END(type, member))

/*
 * One transposed-convolution problem.  Plain data, no pointers, so it can be
 * copied and sent between processes.  Only the first `rank` entries of each per-axis array are
 * used, in D, H, W order (rank 1: W; rank 2: H, W; rank 3: D, H, W); the rest
 * are zero.  dilation is 1 for a dense kernel (never 0-based).  out_size
 * follows from the other members:
 *   out = (in - 1)*stride - pad_begin - pad_end + dilation*(kernel - 1)
 *         + output_padding + 1.
 * The layouts are NUL-terminated layout strings (specification section 2):
 * data_layout a permutation of N, C and the spatial letters (it applies to x
 * and y); weight_layout a permutation of I, O and the spatial letters, or of
 * G, I, O and the spatial letters.  dtype is one of IOHW_F32 .. IOHW_BF16.
 *
 * Version and size rules (append-only):
 *  - struct_size is sizeof(iohw_problem) as the host that filled it was
 *    built; it is at least IOHW_PROBLEM_SIZE_V1 (the members below, 272
 *    bytes).  A backend refuses a smaller one (IOHW_UNSUPPORTED from
 *    supports(), IOHW_INVALID_PROBLEM from run()) and accepts any larger one:
 *    it compares struct_size with IOHW_PROBLEM_SIZE_V1, not with its own
 *    sizeof(iohw_problem).
 *  - Every member has a fixed width (no enum, long, pointer or bit-field)
 *    and its natural alignment, with no implicit padding; members are never
 *    removed, reordered, resized or given a new meaning.
 *  - A later version only appends members, each with a value meaning "as
 *    before" (zero, or a code a version 1 backend would expect), so a
 *    backend built against a newer header reads an appended member only when
 *    IOHW_HAS_MEMBER(p, iohw_problem, member) holds and otherwise takes that
 *    value; a backend built against an older header simply never reads past
 *    the members it knows.
 */
typedef struct iohw_problem {
    uint32_t struct_size;
    uint32_t rank;
    int64_t batch;
    int64_t in_channels;
    int64_t out_channels;
    int64_t groups;
    int64_t in_size[3];
    int64_t kernel[3];
    int64_t stride[3];
    int64_t dilation[3];
    int64_t pad_begin[3];
    int64_t pad_end[3];
    int64_t output_padding[3];
    int64_t out_size[3];
    char data_layout[16];
    char weight_layout[16];
    int32_t dtype;              /* an iohw_dtype code, IOHW_F32 .. IOHW_BF16 */
    int32_t has_bias;
    /* Appended: quantized problems (specification section 11).  All zero in
     * a float problem.  dtype is x's type (IOHW_S8 or IOHW_U8); w_dtype and
     * y_dtype are w's and y's (0: the same as dtype; y_dtype may also be
     * IOHW_S32).  bias is int32.  zp_w is one value for the whole weight.
     * m_form says whether M comes from s_x, s_y and the weight scales or
     * from integer multipliers and shifts; those per-tensor or per-output-
     * channel values (per_channel 1: C_out of them, along O) are passed to
     * run_quant() as its requant tensor. */
    int32_t w_dtype;
    int32_t y_dtype;
    int32_t zp_x;
    int32_t zp_w;
    int32_t zp_y;
    int32_t rounding;           /* IOHW_ROUND_* */
    int32_t m_form;             /* IOHW_QM_* */
    int32_t per_channel;        /* 0: one M; 1: C_out values along O */
    float s_x;                  /* IOHW_QM_SCALES: positive normal binary32 */
    float s_y;
    /* Appended: the framework convention the problem was stated in
     * (specification section 12); zero when it was stated explicitly. */
    int32_t auto_pad;           /* IOHW_AUTO_PAD_* */
    int32_t convention;         /* IOHW_CONV_* */
    int64_t out_shape[3];       /* the requested output shape, or 0 */
    /* Appended: the direction (IOHW_DIR_*; specification section 13),
     * 0 (forward) as before.  Backward problems are float only. */
    int32_t direction;
    int32_t reserved;           /* zero */
} iohw_problem;

/* Bytes of a version 1 problem: everything up to has_bias. */
#define IOHW_PROBLEM_SIZE_V1 IOHW_MEMBER_END(iohw_problem, has_bias)
/* Bytes of a problem that carries the quantization members. */
#define IOHW_PROBLEM_SIZE_QUANT IOHW_MEMBER_END(iohw_problem, s_y)
/* Bytes of a problem that also carries the convention members. */
#define IOHW_PROBLEM_SIZE_CONV IOHW_MEMBER_END(iohw_problem, out_shape)
/* Bytes of a problem that also carries the direction. */
#define IOHW_PROBLEM_SIZE_DIR IOHW_MEMBER_END(iohw_problem, reserved)

/*
 * The table a backend returns.  name and version are static strings that
 * describe the backend and the library it wraps.
 *
 * init (optional, may be NULL): creates the backend's context; returns
 *   IOHW_OK and sets *ctx (possibly to NULL) or returns an error status.
 *   Without init, ctx is NULL in every call.
 * fini (optional, may be NULL): releases the context made by init.
 * supports (required): IOHW_OK when the backend claims the problem,
 *   IOHW_UNSUPPORTED otherwise.  A claimed problem that then fails in run()
 *   counts as an error of the backend.
 * run (required): computes y from x, w and bias (bias is NULL when
 *   has_bias is 0).  Tensors are dense, in the problem's layouts and dtype.
 * last_error (required): a description of the last failure in this
 *   context; never NULL (an empty string when there is none).  The string
 *   stays valid until the next call into the backend with the same context.
 *
 * Version and size rules (append-only): abi_version and struct_size come
 * first in every version.  struct_size is sizeof(iohw_backend) as the
 * backend was built, at least IOHW_BACKEND_SIZE_V1 (everything up to
 * last_error); a host refuses a smaller table.  Members are never removed,
 * reordered or given a new meaning; a later version only appends optional
 * members, which a host reads only when IOHW_HAS_MEMBER(t, iohw_backend,
 * member) holds and treats as absent (NULL) otherwise.  A host ignores what
 * lies past the members it knows.
 */
typedef struct iohw_backend {
    uint32_t abi_version;
    uint32_t struct_size;
    const char *name;
    const char *version;
    int (*init)(void **ctx);
    void (*fini)(void *ctx);
    int (*supports)(void *ctx, const iohw_problem *p);
    int (*run)(void *ctx, const iohw_problem *p, const void *x, const void *w,
               const void *bias, void *y);
    const char *(*last_error)(void *ctx);
    /* Appended (optional): computes a quantized problem (dtype IOHW_S8 or
     * IOHW_U8).  bias is int32 (NULL when has_bias is 0); requant holds
     * n = per_channel ? out_channels : 1 values: float s_w[n] in the scales
     * form, int32 multiplier[n] followed by int32 shift[n] in the fixed
     * form.  A host never hands a quantized problem to run(): a backend
     * without run_quant is UNSUPPORTED on every quantized problem. */
    int (*run_quant)(void *ctx, const iohw_problem *p, const void *x,
                     const void *w, const void *bias, const void *requant,
                     void *y);
    /* Appended (optional): the backward directions (specification section
     * 13), float dtypes only, tensors dense in the problem's layouts and
     * dtype.  run_bwd_data computes dx (data layout, C = C_in) from dy
     * (data layout, C = C_out) and w; run_bwd_weights computes dw (weight
     * layout) from x and dy, and db ([C_out]) when has_bias (db is NULL
     * otherwise).  A backend must write every element of its outputs.  A
     * host asks supports() about a backward problem (p->direction set) only
     * when the backend has that direction's entry point: a backend without
     * it is UNSUPPORTED on those problems and never asked. */
    int (*run_bwd_data)(void *ctx, const iohw_problem *p, const void *dy,
                        const void *w, void *dx);
    int (*run_bwd_weights)(void *ctx, const iohw_problem *p, const void *x,
                           const void *dy, void *dw, void *db);
} iohw_backend;

/* Bytes of a version 1 table: everything up to last_error. */
#define IOHW_BACKEND_SIZE_V1 IOHW_MEMBER_END(iohw_backend, last_error)

/* The one symbol a backend exports. */
typedef const iohw_backend *(*iohw_backend_entry_fn)(uint32_t host_abi_version);
IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version);

#ifdef __cplusplus
}
#endif

#endif /* IOHW_BACKEND_H */
