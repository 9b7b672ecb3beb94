/*
 * tests/test_backends.c - the bundled backends, called in-process through
 * the loader on cases built in memory (iohw_desc_parse + iohw_make_case):
 *
 *   - reference and naive pass every case (ranks, layouts, dtypes, groups,
 *     stride, dilation, pads, output_padding, fills), leave their inputs
 *     alone and write nothing past y;
 *   - each value fault fails at least one case designed to expose it, and
 *     passes a case where its bug is invisible (which also checks that the
 *     fault model reproduces the oracle when nothing is perturbed);
 *   - the misbehaviours that are safe in-process (error after claiming,
 *     unwritten output, writes to x, one element past y) do what they say.
 *     Crashing and hanging backends are the run's isolation tests.
 *
 * The judgement is this file's own small version of the specification's
 * section 3, independent of judge/compare.c:
 *   |got - y_f64| <= (terms_max + 2) * u * err_bound + u * |y_f64|
 *                    + half the dtype's smallest subnormal
 * (u * |y_f64| + the subnormal term bound half an ulp of the rounding);
 * NaN expected needs NaN, a value equal to the stored rounded y always
 * passes (infinities included), exact fills need that equality.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "sandbox/loader.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"

#define BACKEND(name) IOHW_BACKEND_DIR "/lib" name ".so"

/* One run of a case: the status run() returned and the judgement. */
typedef struct outcome {
    int status;
    int64_t bad;       /* elements outside the tolerance */
    int64_t unwritten; /* elements still holding the sentinel pattern */
    int x_changed;     /* x differs from the case's x after the run */
    int past_end;      /* the element after y was written */
} outcome;

static double half_min_subnormal(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F32: return ldexp(1.0, -150);
    case IOHW_F64: return 0.0;
    case IOHW_F16: return ldexp(1.0, -25);
    default: return ldexp(1.0, -134);
    }
}

/* 1 when got is acceptable for element i of the case. */
static int element_ok(const iohw_case *c, int64_t i, double got)
{
    const iohw_dtype dt = c->p.dtype;
    const double want = iohw_dtype_load(dt, c->y, (size_t)i);
    const double e = c->y_f64[i];
    if (got == want || (isnan(got) && isnan(want)))
        return 1;
    if (strcmp(c->fill, "exact") == 0 || isnan(e) || isinf(e) ||
        !isfinite(got))
        return 0;
    const double u = iohw_dtype_unit_roundoff(dt);
    const double tol = (double)(c->terms_max + 2) * u * c->err_bound[i] +
                       u * fabs(e) + half_min_subnormal(dt);
    return fabs(got - e) <= tol;
}

/* Builds a case from a descriptor; aborts the test on failure. */
static void make(const char *desc, iohw_case *c)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(desc, &d, &err), 0, "'%s': %s", desc,
                 err.msg);
    cr_assert_eq(iohw_make_case(&d, "t", NULL, 1, c, &err), 0, "'%s': %s",
                 desc, err.msg);
}

/* Runs a loaded backend on a case, on copies of the inputs, with y
 * pre-filled with 0xFF bytes (NaN in every dtype) and one guard element. */
static outcome run_loaded(const iohw_loaded_backend *lb, const iohw_case *c)
{
    const iohw_problem *p = &c->p;
    const size_t es = iohw_dtype_size(p->dtype);
    const int64_t ny = iohw_problem_y_count(p);
    const size_t nx = (size_t)iohw_problem_x_count(p) * es;
    const size_t nw = (size_t)iohw_problem_w_count(p) * es;
    const size_t nb = (size_t)iohw_problem_bias_count(p) * es;
    outcome out = {0, 0, 0, 0, 0};

    unsigned char *x = malloc(nx), *w = malloc(nw);
    unsigned char *b = nb > 0 ? malloc(nb) : NULL;
    unsigned char *y = malloc((size_t)(ny + 1) * es);
    cr_assert(x != NULL && w != NULL && y != NULL && (nb == 0 || b != NULL));
    memcpy(x, c->x, nx);
    memcpy(w, c->w, nw);
    if (nb > 0)
        memcpy(b, c->bias, nb);
    memset(y, 0xFF, (size_t)(ny + 1) * es);

    cr_assert_eq(lb->table->supports(lb->ctx, p), IOHW_OK,
                 "%s does not claim '%s': %s", lb->table->name,
                 c->descriptor, iohw_backend_last_error(lb));
    out.status = lb->table->run(lb->ctx, p, x, w, b, y);
    if (out.status == IOHW_OK) {
        for (int64_t i = 0; i < ny; i++) {
            int sentinel = 1;
            for (size_t k = 0; k < es; k++)
                sentinel &= y[(size_t)i * es + k] == 0xFF;
            out.unwritten += sentinel;
            out.bad += !element_ok(c, i, iohw_dtype_load(p->dtype, y, (size_t)i));
        }
    }
    for (size_t k = 0; k < es; k++)
        out.past_end |= y[(size_t)ny * es + k] != 0xFF;
    out.x_changed = memcmp(x, c->x, nx) != 0 || memcmp(w, c->w, nw) != 0 ||
                    (nb > 0 && memcmp(b, c->bias, nb) != 0);
    free(x);
    free(w);
    free(b);
    free(y);
    return out;
}

static void load(const char *name, iohw_loaded_backend *lb)
{
    iohw_error err;
    char path[1024];
    snprintf(path, sizeof path, "%s/lib%s.so", IOHW_BACKEND_DIR, name);
    cr_assert_eq(iohw_backend_load(path, lb, &err), 0, "%s", err.msg);
}

/* Runs a backend on a descriptor's case. */
static outcome run_desc(const iohw_loaded_backend *lb, const char *desc)
{
    iohw_case c;
    make(desc, &c);
    outcome o = run_loaded(lb, &c);
    iohw_case_free(&c);
    return o;
}

/* The backend passes the case cleanly. */
static void expect_pass(const iohw_loaded_backend *lb, const char *desc)
{
    outcome o = run_desc(lb, desc);
    cr_expect_eq(o.status, IOHW_OK, "%s on '%s': status %d: %s",
                 lb->table->name, desc, o.status, iohw_backend_last_error(lb));
    cr_expect_eq(o.bad, 0, "%s on '%s': %lld elements out of tolerance",
                 lb->table->name, desc, (long long)o.bad);
    cr_expect_eq(o.unwritten, 0, "%s on '%s': unwritten elements",
                 lb->table->name, desc);
    cr_expect(!o.x_changed, "%s on '%s' wrote into its inputs",
              lb->table->name, desc);
    cr_expect(!o.past_end, "%s on '%s' wrote past y", lb->table->name, desc);
}

/* Problems for the two correct backends: every rank, layout kind, dtype,
 * grouping, stride, dilation, padding, output_padding and fill. */
static const char *const CORRECT_CASES[] = {
    "ci=3 co=5 in=7 k=4 s=3 pad=2:1 op=2 bias=1",
    "ci=2 co=4 in=5 k=3 d=2 xl=NWC wl=OWI",
    "ci=1 co=1 in=1 k=1",
    "ci=2 co=2 in=3 k=9 s=2 pad=3 dt=f64",
    "ci=2 co=2 in=4 k=2 s=2 op=3 bias=1",
    "n=3 ci=4 co=2 g=2 in=7 k=5 s=2 d=3 pad=4:2 op=1 dt=bf16 bias=1 xl=NWC wl=GIOW",
    "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 xl=NHWC wl=OIHW",
    "ci=3 co=2 in=4x4 k=3x3 s=2 pad=1 op=1 wl=HWOI dt=f64 bias=1",
    "ci=6 co=9 g=3 in=3x5 k=2x3 s=3x2 wl=GOIHW xl=CHWN bias=1 dt=f16",
    "ci=10 co=30 g=2 in=8x8 k=5 fill=exact",
    "ci=16 co=16 g=16 in=4x4 k=3 s=2 pad=1 op=1 bias=1",
    "ci=2 co=3 in=1x6 k=3x2 s=2 xl=NHWC",
    "ci=5 co=3 in=6x4 k=3x3 d=2x1 pad=2:0x0:1 dt=f16 fill=uniform bias=1 wl=OHWI",
    "ci=3 co=4 in=5x6 k=3x3 s=2 pad=1 dt=f32 fill=range bias=1",
    "ci=3 co=4 in=5x6 k=3x3 s=2 pad=1 dt=f32 fill=special bias=1",
    "ci=3 co=4 in=5x6 k=3x3 s=2 pad=1 dt=f16 fill=special bias=1",
    "ci=3 co=4 in=5x6 k=2x3 s=1x2 dt=bf16 fill=cancel",
    "ci=3 co=5 in=9 k=4 s=3 pad=2:1 op=2 dt=f64 fill=cancel",
    "n=2 ci=2 co=3 in=2x3x4 k=2x2x3 s=1x2x2 pad=0:1x1:0x1:1 op=0x1x1 bias=1 wl=OIDHW",
    "ci=4 co=4 g=4 in=3x4x5 k=2x3x2 s=2 d=2x1x1 dt=bf16 xl=NDHWC wl=GOIDHW fill=exact",
    "ci=4 co=6 g=2 in=3x2x3 k=2 s=2x1x2 d=1x2x1 dt=f64 wl=GIODHW xl=DHWNC bias=1",
    "ci=2 co=2 in=1x1x1 k=2x3x1 s=3 op=2x1x0 dt=f16 xl=CDHWN wl=DHWIO",
};

Test(backends, reference_and_naive_pass_every_case)
{
    iohw_loaded_backend ref, naive;
    load("iohw_reference", &ref);
    load("iohw_naive", &naive);
    for (size_t i = 0; i < sizeof CORRECT_CASES / sizeof *CORRECT_CASES; i++) {
        expect_pass(&ref, CORRECT_CASES[i]);
        expect_pass(&naive, CORRECT_CASES[i]);
    }
    iohw_backend_unload(&ref);
    iohw_backend_unload(&naive);
}

Test(backends, reference_and_naive_pass_every_layout_pair)
{
    static const char *const data[] = {"NCHW", "NHWC", "CHWN", "HWNC"};
    static const char *const weight[] = {"IOHW", "OIHW", "HWIO", "HWOI",
                                         "OHWI", "GIOHW", "GOIHW", "GOHWI"};
    iohw_loaded_backend ref, naive;
    load("iohw_reference", &ref);
    load("iohw_naive", &naive);
    for (size_t i = 0; i < sizeof data / sizeof *data; i++) {
        for (size_t j = 0; j < sizeof weight / sizeof *weight; j++) {
            char desc[256];
            snprintf(desc, sizeof desc,
                     "n=2 ci=6 co=4 g=2 in=3x4 k=3x2 s=2x1 pad=1:0x0:1 "
                     "bias=1 xl=%s wl=%s", data[i], weight[j]);
            expect_pass(&ref, desc);
            expect_pass(&naive, desc);
        }
    }
    iohw_backend_unload(&ref);
    iohw_backend_unload(&naive);
}

Test(backends, the_reference_reproduces_the_stored_y_bit_for_bit)
{
    iohw_loaded_backend ref;
    load("iohw_reference", &ref);
    iohw_case c;
    make("ci=3 co=4 in=5x6 k=3x3 s=2 pad=1 dt=bf16 bias=1", &c);
    const size_t bytes = (size_t)iohw_problem_y_count(&c.p) * 2;
    void *y = malloc(bytes);
    cr_assert_eq(ref.table->run(ref.ctx, &c.p, c.x, c.w, c.bias, y), IOHW_OK);
    cr_expect_eq(memcmp(y, c.y, bytes), 0);
    free(y);
    iohw_case_free(&c);
    iohw_backend_unload(&ref);
}

Test(backends, reference_and_naive_refuse_an_invalid_problem)
{
    static const char *const names[] = {"iohw_reference", "iohw_naive"};
    for (int b = 0; b < 2; b++) {
        iohw_loaded_backend lb;
        iohw_desc d;
        iohw_error err;
        load(names[b], &lb);
        cr_assert_eq(iohw_desc_parse("ci=2 co=3 in=4 k=3", &d, &err), 0);
        iohw_problem p = d.p;
        p.out_size[0] += 1; /* disagrees with the formula */
        cr_expect_eq(lb.table->supports(lb.ctx, &p), IOHW_UNSUPPORTED);
        cr_expect_str_not_empty(iohw_backend_last_error(&lb));
        float x[8] = {0}, w[18] = {0}, y[32] = {0};
        cr_expect_eq(lb.table->run(lb.ctx, &p, x, w, NULL, y),
                     IOHW_INVALID_PROBLEM);
        p = d.p;
        strcpy(p.weight_layout, "IOO");
        cr_expect_eq(lb.table->supports(lb.ctx, &p), IOHW_UNSUPPORTED);
        iohw_backend_unload(&lb);
    }
}

/* --- seeded faults ------------------------------------------------------ */

/* The fault fails at least one exposing case, and passes the hiding one
 * (NULL: none). */
static void expect_caught(const char *fault, const char *const *exposing,
                          const char *hiding)
{
    char name[128];
    iohw_loaded_backend lb;
    snprintf(name, sizeof name, "iohw_fault_%s", fault);
    load(name, &lb);
    int caught = 0;
    for (int i = 0; exposing[i] != NULL; i++) {
        outcome o = run_desc(&lb, exposing[i]);
        cr_expect_eq(o.status, IOHW_OK, "%s on '%s': %s", fault, exposing[i],
                     iohw_backend_last_error(&lb));
        caught |= o.bad > 0;
    }
    cr_expect(caught, "no exposing case catches %s", fault);
    if (hiding != NULL)
        expect_pass(&lb, hiding);
    iohw_backend_unload(&lb);
}

#define FAULT_TEST(fault, hiding, ...)                                     \
    Test(faults, fault##_is_caught_and_passes_where_its_bug_is_invisible)  \
    {                                                                      \
        static const char *const exposing[] = {__VA_ARGS__, NULL};         \
        expect_caught(#fault, exposing, hiding);                           \
    }

FAULT_TEST(io_swap, "ci=1 co=1 in=4x5 k=3x2 s=2 bias=1",
           "ci=3 co=2 in=4x5 k=3x2 s=2 bias=1",
           "ci=2 co=2 in=3x4 k=2x3 xl=NHWC wl=OIHW",
           "ci=4 co=6 g=2 in=5 k=3 wl=GOIW")
FAULT_TEST(no_flip, "ci=2 co=3 in=5x4 k=1 s=2",
           "ci=2 co=3 in=5x4 k=3x2 s=2x1",
           "ci=1 co=1 in=6 k=2 dt=f64")
FAULT_TEST(group_interleave, "ci=6 co=4 in=5 k=3 s=2 bias=1",
           "ci=6 co=4 g=2 in=5 k=3 s=2 bias=1",
           "ci=6 co=9 g=3 in=3x4 k=2 wl=GOIHW xl=NHWC")
FAULT_TEST(bias_per_group, "ci=4 co=6 in=5 k=3 bias=1",
           "ci=4 co=6 g=2 in=5 k=3 bias=1",
           "ci=3 co=3 g=3 in=4x4 k=2 bias=1 dt=f16")
FAULT_TEST(eff_kernel, "ci=2 co=3 in=4x5 k=3x4 s=1x2",
           "ci=2 co=3 in=4x5 k=3x4 d=2x3 s=1x2",
           "ci=2 co=2 in=6 k=5 d=2 s=2 pad=1:0 bias=1")
FAULT_TEST(dilation_ignored, "ci=2 co=3 in=5x4 k=3x2",
           "ci=2 co=3 in=5x4 k=3x2 d=2x3",
           "ci=2 co=3 in=2x3x4 k=2 d=1x1x2")
FAULT_TEST(dilation_zero_based, "ci=2 co=3 in=5x4 k=1",
           "ci=2 co=3 in=5x4 k=3x2 d=2x3",
           "ci=2 co=3 in=5x4 k=3x2 d=1")
FAULT_TEST(op_ignored, "ci=2 co=3 in=5x4 k=3x3 s=2 pad=1:2x0:1",
           "ci=2 co=3 in=5x4 k=3x3 s=2 pad=1:2x0:1 op=1",
           "ci=2 co=2 in=6 k=4 s=3 pad=0:2 op=2 bias=1")
FAULT_TEST(op_at_begin, "ci=2 co=3 in=5x4 k=3x3 s=2 pad=1",
           "ci=2 co=3 in=5x4 k=3x3 s=2 pad=1 op=1",
           "ci=2 co=2 in=6 k=4 s=3 op=2")
FAULT_TEST(asym_pad_swapped, "ci=2 co=3 in=5x4 k=3x3 s=2 pad=1",
           "ci=2 co=3 in=5x4 k=3x3 s=2 pad=2:0x0:1",
           "ci=2 co=2 in=6 k=4 s=2 pad=0:3")
FAULT_TEST(asym_pad_symmetric, "ci=2 co=3 in=5x4 k=3x3 s=2 pad=1:2x0:1",
           "ci=2 co=3 in=5x4 k=3x3 s=2 pad=2:0x1:0",
           "ci=2 co=2 in=6 k=4 s=2 pad=2:1")
FAULT_TEST(pad_as_input, "ci=2 co=3 in=5x4 k=3x3 s=2 pad=0:1x0:2",
           "ci=2 co=3 in=5x4 k=3x3 s=2 pad=1",
           "ci=2 co=2 in=6 k=4 s=3 pad=2:0")
FAULT_TEST(size1_squeeze, "ci=2 co=3 in=5x4 k=3x2 s=2",
           "ci=2 co=3 in=1x5 k=3x2 s=2",
           "ci=2 co=3 in=1 k=3",
           "ci=2 co=2 in=4x1x3 k=2 bias=1")
FAULT_TEST(garbage, NULL,
           "ci=2 co=3 in=5x4 k=3x2 s=2",
           "ci=1 co=1 in=1 k=1 dt=f16")

/* A case whose inputs are set by hand: ci channels, one input position,
 * a one-tap kernel, so the single output sums ci products x[c] * w[c]. */
static void hand_case(iohw_case *c, const char *dt, int ci, const double *x,
                      const double *w)
{
    char desc[128];
    iohw_error err;
    snprintf(desc, sizeof desc, "ci=%d co=1 in=1 k=1 dt=%s", ci, dt);
    make(desc, c);
    for (int i = 0; i < ci; i++) {
        iohw_dtype_store(c->p.dtype, c->x, (size_t)i, x[i]);
        iohw_dtype_store(c->p.dtype, c->w, (size_t)i, w[i]);
    }
    cr_assert_eq(iohw_complete_case(c, 1, &err), 0, "%s", err.msg);
}

Test(faults, f16_coarse_is_caught_by_underflow_and_overflow)
{
    iohw_loaded_backend lb;
    iohw_case c;
    load("iohw_fault_f16_coarse", &lb);

    /* f16: 16 products of 2^-12 * 2^-13 = 2^-25 each, exactly half the
     * smallest subnormal; each rounds to 0 (ties to even), while the sum,
     * 2^-21, is representable. */
    double x[16], w[16];
    for (int i = 0; i < 16; i++) {
        x[i] = ldexp(1.0, -12);
        w[i] = ldexp(1.0, -13);
    }
    hand_case(&c, "f16", 16, x, w);
    cr_expect_eq(c.y_f64[0], ldexp(1.0, -21));
    cr_expect_gt(run_loaded(&lb, &c).bad, 0, "f16 underflow");
    iohw_case_free(&c);

    /* f16 and bf16: 2*a*b overflows before -2*a*b brings the sum back to 0
     * (f16: a*b = 256*200 = 51200, max 65504; bf16: 2^64 * 2^63). */
    const double f16x[4] = {256, 256, 256, 256}, f16w[4] = {200, 200, -200, -200};
    hand_case(&c, "f16", 4, f16x, f16w);
    cr_expect_eq(c.y_f64[0], 0.0);
    cr_expect_gt(run_loaded(&lb, &c).bad, 0, "f16 overflow");
    iohw_case_free(&c);
    const double b16x[4] = {0x1p64, 0x1p64, 0x1p64, 0x1p64};
    const double b16w[4] = {0x1p63, 0x1p63, -0x1p63, -0x1p63};
    hand_case(&c, "bf16", 4, b16x, b16w);
    cr_expect_gt(run_loaded(&lb, &c).bad, 0, "bf16 overflow");
    iohw_case_free(&c);

    /* Wide types are computed correctly, and so is a short f16 sum. */
    expect_pass(&lb, "ci=3 co=2 in=4x5 k=3x2 s=2 bias=1");
    expect_pass(&lb, "ci=3 co=2 in=4x5 k=3x2 s=2 bias=1 dt=f64");
    expect_pass(&lb, "ci=2 co=2 in=4 k=2 dt=f16 fill=exact");
    iohw_backend_unload(&lb);
}

/* Runs a loaded f32 backend on a case whose x and w are given (no bias);
 * its output into y (ny elements). */
static void run_f32(const iohw_loaded_backend *lb, const char *desc, const float *x,
                    const float *w, float *y, int64_t ny)
{
    iohw_case c;
    make(desc, &c);
    cr_assert_eq(iohw_problem_y_count(&c.p), ny, "%s", desc);
    cr_assert_eq(lb->table->supports(lb->ctx, &c.p), IOHW_OK, "%s", desc);
    cr_assert_eq(lb->table->run(lb->ctx, &c.p, x, w, NULL, y), IOHW_OK, "%s: %s", desc,
                 iohw_backend_last_error(lb));
    iohw_case_free(&c);
}

Test(faults, crop_1x1_ignores_pad_begin_on_a_1x1_stride_1_kernel)
{
    iohw_loaded_backend lb;
    load("iohw_fault_crop_1x1", &lb);

    /* 1-d: the uncropped output is 3 * x = 3 6 9 12 15; pad 2:1 keeps
     * 9 12, the fault stores the first two positions, 3 6. */
    const float x1[5] = {1, 2, 3, 4, 5}, w1[1] = {3};
    float y1[2];
    run_f32(&lb, "ci=1 co=1 in=5 k=1 pad=2:1", x1, w1, y1, 2);
    cr_expect(y1[0] == 3.0f && y1[1] == 6.0f, "got %g %g, the bug gives 3 6 (right: 9 12)",
              (double)y1[0], (double)y1[1]);

    /* 2-d: x = 1..9 on a 3x3 grid, w = 1; pad 1:0 x 0:1 keeps rows 1-2
     * and columns 0-1 (4 5 7 8); the fault keeps rows 0-1 (1 2 4 5). */
    const float x2[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w2[1] = {1};
    float y2[4];
    run_f32(&lb, "ci=1 co=1 in=3x3 k=1x1 pad=1:0x0:1", x2, w2, y2, 4);
    const float want2[4] = {1, 2, 4, 5};
    for (int i = 0; i < 4; i++)
        cr_expect(y2[i] == want2[i], "y[%d] = %g, the bug gives %g", i, (double)y2[i],
                  (double)want2[i]);

    /* Other problems are computed correctly: no padding, a stride, a
     * kernel of more than one tap. */
    expect_pass(&lb, "ci=3 co=2 in=6 k=1 bias=1");
    expect_pass(&lb, "ci=2 co=3 in=5x4 k=1x1 s=2x3 pad=1:0x2:1");
    expect_pass(&lb, "ci=3 co=2 in=5x6 k=3x1 pad=1x1:2");
    iohw_backend_unload(&lb);
}

Test(faults, claim_then_error_claims_rank_3_and_then_fails_it)
{
    iohw_loaded_backend lb;
    load("iohw_fault_claim_then_error", &lb);
    outcome o = run_desc(&lb, "ci=2 co=2 in=2x3x2 k=2");
    cr_expect_eq(o.status, IOHW_BACKEND_ERROR);
    cr_expect(strstr(iohw_backend_last_error(&lb), "not implemented") != NULL,
              "%s", iohw_backend_last_error(&lb));
    expect_pass(&lb, "ci=2 co=2 in=3x2 k=2 s=2 bias=1");
    iohw_backend_unload(&lb);
}

Test(faults, unwritten_leaves_exactly_the_last_w_column)
{
    iohw_loaded_backend lb;
    load("iohw_fault_unwritten", &lb);
    /* y is [2][3][O_H = 6][O_W = 5]: 2*3*6 elements have w = 4. */
    outcome o = run_desc(&lb, "n=2 ci=2 co=3 in=3x4 k=4x2 s=1x1 xl=NHWC");
    cr_expect_eq(o.status, IOHW_OK);
    cr_expect_eq(o.unwritten, 2 * 3 * 6);
    cr_expect_eq(o.bad, o.unwritten);
    iohw_backend_unload(&lb);
}

Test(faults, input_write_changes_x_but_not_y)
{
    iohw_loaded_backend lb;
    load("iohw_fault_input_write", &lb);
    outcome o = run_desc(&lb, "ci=2 co=3 in=3x4 k=2 dt=bf16");
    cr_expect_eq(o.status, IOHW_OK);
    cr_expect(o.x_changed);
    cr_expect_eq(o.bad, 0);
    iohw_backend_unload(&lb);
}

Test(faults, oob_write_writes_the_element_after_y)
{
    iohw_loaded_backend lb;
    load("iohw_fault_oob_write", &lb);
    outcome o = run_desc(&lb, "ci=2 co=3 in=3x4 k=2 dt=f64");
    cr_expect_eq(o.status, IOHW_OK);
    cr_expect(o.past_end);
    cr_expect_eq(o.bad, 0);
    iohw_backend_unload(&lb);
}

Test(faults, the_unperturbed_fault_model_reproduces_the_oracle_everywhere)
{
    /* oob_write computes y with the fault model and no perturbation (then
     * writes into the guard element, which run_loaded provides): y itself
     * must be right on every case. */
    iohw_loaded_backend lb;
    load("iohw_fault_oob_write", &lb);
    for (size_t i = 0; i < sizeof CORRECT_CASES / sizeof *CORRECT_CASES; i++) {
        outcome o = run_desc(&lb, CORRECT_CASES[i]);
        cr_expect_eq(o.status, IOHW_OK);
        cr_expect_eq(o.bad, 0, "'%s': %lld elements out of tolerance",
                     CORRECT_CASES[i], (long long)o.bad);
    }
    iohw_backend_unload(&lb);
}

Test(faults, crash_and_hang_load_and_claim_every_problem)
{
    /* Running them is the isolation tests' job (a crash or a hang would
     * take this process with it); here they must at least load. */
    static const char *const names[] = {"iohw_fault_crash", "iohw_fault_hang"};
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse("ci=4 co=2 g=2 in=3 k=2 op=1", &d, &err), 0);
    for (int i = 0; i < 2; i++) {
        iohw_loaded_backend lb;
        load(names[i], &lb);
        cr_expect_eq(lb.table->supports(lb.ctx, &d.p), IOHW_OK);
        iohw_backend_unload(&lb);
    }
}
