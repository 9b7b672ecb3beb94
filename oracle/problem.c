/*
 * oracle/problem.c - defaults, output size, validation and element counts of
 * a transposed-convolution problem.
 *
 * Definitions (specification section 1, docs/SPEC.md), per spatial axis a < R:
 *   O_a = (L_a - 1)*S_a - P-_a - P+_a + D_a*(K_a - 1) + A_a + 1,
 * with L, K, S, D >= 1 and P-, P+, A >= 0; a problem with O_a < 1 is invalid.
 * Tensors: x[N][C_in][L...], w[C_in][C_out/G][K...], bias[C_out],
 * y[N][C_out][O...]; each must hold at most IOHW_MAX_ELEMENTS elements
 * (bias never holds more than y).
 * Members are int64 and may hold anything (they come from files and from
 * the command line), so every sum and product is checked for overflow.
 */
#include "oracle/problem.h"

#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/quant_problem.h"

#define NAXES 3

/* Letter of axis a (0-based) of a rank-R problem: D, H, W ending in W. */
static char axis_letter(int rank, int a)
{
    return "DHW"[NAXES - rank + a];
}

/* O_a by the formula; -1 when a sum or product overflows int64. */
static int out_formula(const iohw_problem *p, int a, int64_t *out)
{
    int64_t l1, k1, span, reach, o;
    if (__builtin_sub_overflow(p->in_size[a], 1, &l1) ||
        __builtin_sub_overflow(p->kernel[a], 1, &k1) ||
        __builtin_mul_overflow(l1, p->stride[a], &span) ||
        __builtin_mul_overflow(p->dilation[a], k1, &reach) ||
        __builtin_sub_overflow(span, p->pad_begin[a], &o) ||
        __builtin_sub_overflow(o, p->pad_end[a], &o) ||
        __builtin_add_overflow(o, reach, &o) ||
        __builtin_add_overflow(o, p->output_padding[a], &o) ||
        __builtin_add_overflow(o, 1, &o))
        return -1;
    *out = o;
    return 0;
}

/* c1 * c2 * ext[0] * ... * ext[rank-1]; -1 on int64 overflow. */
static int64_t count_of(int64_t c1, int64_t c2, const int64_t *ext, int rank)
{
    int64_t c;
    if (__builtin_mul_overflow(c1, c2, &c))
        return -1;
    for (int a = 0; a < rank; a++)
        if (__builtin_mul_overflow(c, ext[a], &c))
            return -1;
    return c;
}

/* The problem's rank clamped to the arrays, for code that must not index
 * past them even on an unvalidated problem. */
static int safe_rank(const iohw_problem *p)
{
    return p->rank <= NAXES ? (int)p->rank : NAXES;
}

void iohw_problem_init(iohw_problem *p)
{
    memset(p, 0, sizeof *p);
    p->struct_size = (uint32_t)sizeof *p;
    p->batch = 1;
    p->groups = 1;
    for (int a = 0; a < NAXES; a++) {
        p->stride[a] = 1;
        p->dilation[a] = 1;
    }
    p->dtype = IOHW_F32;
}

int64_t iohw_problem_out_axis(const iohw_problem *p, int a)
{
    int64_t o;
    if (a < 0 || a >= safe_rank(p) || out_formula(p, a, &o) != 0)
        return -1;
    return o;
}

int iohw_problem_finish(iohw_problem *p, iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "problem is NULL");
    const int rank = (int)p->rank;
    if (rank >= 1 && rank <= NAXES) {
        /* Unused axes hold zero (init leaves stride/dilation 1 there). */
        for (int a = rank; a < NAXES; a++) {
            p->in_size[a] = p->kernel[a] = p->stride[a] = p->dilation[a] = 0;
            p->pad_begin[a] = p->pad_end[a] = p->output_padding[a] = 0;
            p->out_size[a] = 0;
        }
        /* Default layouts. */
        if (p->data_layout[0] == '\0')
            iohw_layout_default_data(rank, p->data_layout);
        if (p->weight_layout[0] == '\0')
            iohw_layout_default_weight(rank, p->weight_layout);
        /* Output sizes (an overflow is reported by validate). */
        for (int a = 0; a < rank; a++) {
            int64_t o;
            p->out_size[a] = out_formula(p, a, &o) == 0 ? o : -1;
        }
    }
    return iohw_problem_validate(p, err);
}

/* Checks one tensor's element count. */
static int check_count(const char *tensor, const char *formula, int64_t count,
                       iohw_error *err)
{
    if (count < 0)
        return iohw_error_set(err, "tensor %s: element count %s overflows "
                              "int64", tensor, formula);
    if (count > IOHW_MAX_ELEMENTS)
        return iohw_error_set(err, "tensor %s: %" PRId64 " elements (%s), "
                              "more than the limit of %" PRId64, tensor, count,
                              formula, IOHW_MAX_ELEMENTS);
    return 0;
}

/* The scalar members: sizes of the struct, rank, batch, channels, groups. */
static int check_scalars(const iohw_problem *p, iohw_error *err)
{
    if (p->struct_size != sizeof *p)
        return iohw_error_set(err, "struct_size = %" PRIu32 ", expected %zu",
                              p->struct_size, sizeof *p);
    if (p->rank < 1 || p->rank > NAXES)
        return iohw_error_set(err, "rank = %" PRIu32 ": must be 1, 2 or 3",
                              p->rank);
    if (p->batch < 1)
        return iohw_error_set(err, "batch = %" PRId64 ": must be >= 1",
                              p->batch);
    if (p->in_channels < 1)
        return iohw_error_set(err, "in_channels = %" PRId64 ": must be >= 1",
                              p->in_channels);
    if (p->out_channels < 1)
        return iohw_error_set(err, "out_channels = %" PRId64 ": must be >= 1",
                              p->out_channels);
    if (p->groups < 1)
        return iohw_error_set(err, "groups = %" PRId64 ": must be >= 1",
                              p->groups);
    if (p->in_channels % p->groups != 0)
        return iohw_error_set(err, "groups = %" PRId64 " does not divide "
                              "in_channels = %" PRId64, p->groups,
                              p->in_channels);
    if (p->out_channels % p->groups != 0)
        return iohw_error_set(err, "groups = %" PRId64 " does not divide "
                              "out_channels = %" PRId64, p->groups,
                              p->out_channels);
    return 0;
}

/* Per-axis members: minimum on used axes, zero on unused ones. */
static int check_axes(const iohw_problem *p, int R, iohw_error *err)
{
    const struct {
        const char *name;
        const int64_t *v;
        int64_t min;
    } axes[] = {
        {"in_size", p->in_size, 1},
        {"kernel", p->kernel, 1},
        {"stride", p->stride, 1},
        {"dilation", p->dilation, 1},
        {"pad_begin", p->pad_begin, 0},
        {"pad_end", p->pad_end, 0},
        {"output_padding", p->output_padding, 0},
    };
    for (size_t m = 0; m < sizeof axes / sizeof axes[0]; m++) {
        const int64_t *v = axes[m].v;
        for (int a = 0; a < R; a++)
            if (v[a] < axes[m].min)
                return iohw_error_set(err, "%s[%d] (%c) = %" PRId64 ": must "
                                      "be >= %" PRId64, axes[m].name, a,
                                      axis_letter(R, a), v[a], axes[m].min);
        for (int a = R; a < NAXES; a++)
            if (v[a] != 0)
                return iohw_error_set(err, "%s[%d] = %" PRId64 ": unused axis "
                                      "of a rank-%d problem must be 0",
                                      axes[m].name, a, v[a], R);
    }
    for (int a = R; a < NAXES; a++)
        if (p->out_size[a] != 0)
            return iohw_error_set(err, "out_size[%d] = %" PRId64 ": unused "
                                  "axis of a rank-%d problem must be 0", a,
                                  p->out_size[a], R);
    return 0;
}

/* Output sizes: each the formula's value, and at least 1. */
static int check_out_sizes(const iohw_problem *p, int R, iohw_error *err)
{
    for (int a = 0; a < R; a++) {
        int64_t o;
        if (out_formula(p, a, &o) != 0)
            return iohw_error_set(err, "out_size[%d] (%c): the output-size "
                                  "formula overflows int64", a,
                                  axis_letter(R, a));
        if (o < 1)
            return iohw_error_set(err, "out_size[%d] (%c): the formula gives "
                                  "%" PRId64 ", must be >= 1", a,
                                  axis_letter(R, a), o);
        if (p->out_size[a] != o)
            return iohw_error_set(err, "out_size[%d] (%c) = %" PRId64 ", but "
                                  "the formula gives %" PRId64, a,
                                  axis_letter(R, a), p->out_size[a], o);
    }
    return 0;
}

/* The direction (specification section 13): known, float only, and BWD_D
 * without a bias (the bias takes no part in dx). */
static int check_direction(const iohw_problem *p, iohw_error *err)
{
    if (p->direction < IOHW_DIR_FWD || p->direction > IOHW_DIR_BWD_W)
        return iohw_error_set(err, "direction = %" PRId32 ": must be 0 "
                              "(forward), 1 (BWD_D) or 2 (BWD_W)",
                              p->direction);
    if (p->reserved != 0)
        return iohw_error_set(err, "reserved = %" PRId32 ": must be 0",
                              p->reserved);
    if (p->direction != IOHW_DIR_FWD && !iohw_dtype_is_float(p->dtype))
        return iohw_error_set(err, "direction %s: backward problems are "
                              "float only (f32, f64, f16, bf16)",
                              iohw_direction_name(p));
    if (p->direction == IOHW_DIR_BWD_D && p->has_bias)
        return iohw_error_set(err, "direction BWD_D with has_bias = 1: the "
                              "bias takes no part in dx (BWD_WB computes db)");
    return 0;
}

/* Element type, bias flag and layout strings. */
static int check_type_and_layouts(const iohw_problem *p, int R, iohw_error *err)
{
    if (!iohw_dtype_is_float(p->dtype) && !iohw_problem_is_quant(p))
        return iohw_error_set(err, "dtype = %d: must be f32, f64, f16, bf16 "
                              "or (quantized) s8, u8", (int)p->dtype);
    if (p->has_bias != 0 && p->has_bias != 1)
        return iohw_error_set(err, "has_bias = %" PRId32 ": must be 0 or 1",
                              p->has_bias);
    if (check_direction(p, err) != 0)
        return -1;
    if (iohw__problem_check_quant(p, err) != 0)
        return -1;
    if (memchr(p->data_layout, '\0', sizeof p->data_layout) == NULL)
        return iohw_error_set(err, "data_layout is not NUL-terminated");
    if (memchr(p->weight_layout, '\0', sizeof p->weight_layout) == NULL)
        return iohw_error_set(err, "weight_layout is not NUL-terminated");
    if (iohw_layout_check_data(p->data_layout, R, err) != 0)
        return iohw_error_prefix(err, "data_layout");
    if (iohw_layout_check_weight(p->weight_layout, R, err) != 0)
        return iohw_error_prefix(err, "weight_layout");
    return 0;
}

/* Element counts of x, w and y (bias never holds more than y). */
static int check_tensor_sizes(const iohw_problem *p, int R, iohw_error *err)
{
    const int64_t Mg = p->out_channels / p->groups;
    if (check_count("x", "N*C_in*L", count_of(p->batch, p->in_channels,
                                                p->in_size, R), err) != 0)
        return -1;
    if (check_count("w", "C_in*(C_out/G)*K", count_of(p->in_channels, Mg,
                                                      p->kernel, R), err) != 0)
        return -1;
    if (check_count("y", "N*C_out*O", count_of(p->batch, p->out_channels,
                                                 p->out_size, R), err) != 0)
        return -1;
    return 0;
}

int iohw_problem_validate(const iohw_problem *p, iohw_error *err)
{
    /* Test the input parameters, in the order of the struct. */
    if (p == NULL)
        return iohw_error_set(err, "problem is NULL");
    if (check_scalars(p, err) != 0)
        return -1;
    const int R = (int)p->rank;
    if (check_axes(p, R, err) != 0 || check_out_sizes(p, R, err) != 0
        || check_type_and_layouts(p, R, err) != 0 || check_tensor_sizes(p, R, err) != 0)
        return -1;
    return 0;
}

int iohw_problem_beyond_limit(const iohw_problem *p)
{
    const int R = safe_rank(p);
    for (int a = 0; a < R; a++) {
        int64_t limit = p->stride[a] > p->dilation[a] ? p->stride[a]
                                                      : p->dilation[a];
        if (p->output_padding[a] >= limit)
            return 1;
    }
    return 0;
}

int64_t iohw_problem_x_count(const iohw_problem *p)
{
    return count_of(p->batch, p->in_channels, p->in_size, safe_rank(p));
}

int64_t iohw_problem_w_count(const iohw_problem *p)
{
    if (p->groups < 1)
        return -1;
    return count_of(p->in_channels, p->out_channels / p->groups, p->kernel,
                    safe_rank(p));
}

int64_t iohw_problem_y_count(const iohw_problem *p)
{
    return count_of(p->batch, p->out_channels, p->out_size, safe_rank(p));
}

int64_t iohw_problem_bias_count(const iohw_problem *p)
{
    return p->has_bias ? p->out_channels : 0;
}

int iohw_problem_is_backward(const iohw_problem *p)
{
    return p->direction == IOHW_DIR_BWD_D || p->direction == IOHW_DIR_BWD_W;
}

/* benchdnn's five names: direction and bias. */
static const struct {
    const char *name;
    int32_t direction, has_bias;
} DIRECTIONS[] = {
    {"FWD_D", IOHW_DIR_FWD, 0},   {"FWD_B", IOHW_DIR_FWD, 1},
    {"BWD_D", IOHW_DIR_BWD_D, 0}, {"BWD_W", IOHW_DIR_BWD_W, 0},
    {"BWD_WB", IOHW_DIR_BWD_W, 1},
};

const char *iohw_direction_name(const iohw_problem *p)
{
    for (size_t i = 0; i < sizeof DIRECTIONS / sizeof DIRECTIONS[0]; i++)
        if (DIRECTIONS[i].direction == p->direction &&
            DIRECTIONS[i].has_bias == (p->has_bias != 0))
            return DIRECTIONS[i].name;
    return "?";
}

int iohw_direction_parse(const char *s, int32_t *direction, int32_t *has_bias)
{
    for (size_t i = 0; s != NULL && i < sizeof DIRECTIONS / sizeof DIRECTIONS[0]; i++)
        if (strcasecmp(s, DIRECTIONS[i].name) == 0) {
            *direction = DIRECTIONS[i].direction;
            *has_bias = DIRECTIONS[i].has_bias;
            return 0;
        }
    return -1;
}

int64_t iohw_problem_out_count(const iohw_problem *p)
{
    switch (p->direction) {
    case IOHW_DIR_BWD_D:
        return iohw_problem_x_count(p);
    case IOHW_DIR_BWD_W:
        return iohw_problem_w_count(p) + iohw_problem_bias_count(p);
    default:
        return iohw_problem_y_count(p);
    }
}

const char *iohw_spatial_letters(int rank)
{
    switch (rank) {
    case 1: return "W";
    case 2: return "HW";
    case 3: return "DHW";
    }
    return NULL;
}
