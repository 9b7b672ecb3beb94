/*
 * tests/test_descriptor.c - the problem descriptor (specification section 6):
 * the specification's example, defaults, broadcasting of single values, the
 * canonical form, round trips over generated descriptors, and every error
 * path.
 */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/problem.h"

#define SPEC_EXAMPLE                                                          \
    "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 "  \
    "dt=f32 xl=NHWC wl=OIHW fill=normal seed=7"

/* Field-by-field equality, reported by name. */
static void expect_same_desc(const iohw_desc *a, const iohw_desc *b,
                             const char *ctx)
{
    const iohw_problem *p = &a->p, *q = &b->p;
    cr_expect_eq(p->struct_size, q->struct_size, "%s: struct_size", ctx);
    cr_expect_eq(p->rank, q->rank, "%s: rank", ctx);
    cr_expect_eq(p->batch, q->batch, "%s: batch", ctx);
    cr_expect_eq(p->in_channels, q->in_channels, "%s: in_channels", ctx);
    cr_expect_eq(p->out_channels, q->out_channels, "%s: out_channels", ctx);
    cr_expect_eq(p->groups, q->groups, "%s: groups", ctx);
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(p->in_size[i], q->in_size[i], "%s: in_size[%d]", ctx, i);
        cr_expect_eq(p->kernel[i], q->kernel[i], "%s: kernel[%d]", ctx, i);
        cr_expect_eq(p->stride[i], q->stride[i], "%s: stride[%d]", ctx, i);
        cr_expect_eq(p->dilation[i], q->dilation[i], "%s: dilation[%d]", ctx,
                     i);
        cr_expect_eq(p->pad_begin[i], q->pad_begin[i], "%s: pad_begin[%d]",
                     ctx, i);
        cr_expect_eq(p->pad_end[i], q->pad_end[i], "%s: pad_end[%d]", ctx, i);
        cr_expect_eq(p->output_padding[i], q->output_padding[i],
                     "%s: output_padding[%d]", ctx, i);
        cr_expect_eq(p->out_size[i], q->out_size[i], "%s: out_size[%d]", ctx,
                     i);
    }
    cr_expect_str_eq(p->data_layout, q->data_layout, "%s: data_layout", ctx);
    cr_expect_str_eq(p->weight_layout, q->weight_layout, "%s: weight_layout",
                     ctx);
    cr_expect_eq(p->dtype, q->dtype, "%s: dtype", ctx);
    cr_expect_eq(p->has_bias, q->has_bias, "%s: has_bias", ctx);
    cr_expect_str_eq(a->fill, b->fill, "%s: fill", ctx);
    cr_expect_eq(a->seed, b->seed, "%s: seed", ctx);
}

Test(descriptor, the_specification_example_parses_to_every_field)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(SPEC_EXAMPLE, &d, &err), 0, "%s", err.msg);
    cr_expect_eq(d.p.struct_size, sizeof(iohw_problem));
    cr_expect_eq(d.p.rank, 2);
    cr_expect_eq(d.p.batch, 2);
    cr_expect_eq(d.p.in_channels, 4);
    cr_expect_eq(d.p.out_channels, 6);
    cr_expect_eq(d.p.groups, 2);
    /* H, then W; the unused third entry is 0. */
    const int64_t in[3] = {5, 7, 0}, k[3] = {3, 2, 0}, s[3] = {2, 1, 0},
                  dl[3] = {1, 2, 0}, pb[3] = {1, 0, 0}, pe[3] = {0, 1, 0},
                  op[3] = {1, 0, 0};
    /* H: (5-1)*2 - 1 - 0 + 1*(3-1) + 1 + 1 = 11;
     * W: (7-1)*1 - 0 - 1 + 2*(2-1) + 0 + 1 = 8. */
    const int64_t out[3] = {11, 8, 0};
    for (int a = 0; a < 3; a++) {
        cr_expect_eq(d.p.in_size[a], in[a], "in_size[%d]", a);
        cr_expect_eq(d.p.kernel[a], k[a], "kernel[%d]", a);
        cr_expect_eq(d.p.stride[a], s[a], "stride[%d]", a);
        cr_expect_eq(d.p.dilation[a], dl[a], "dilation[%d]", a);
        cr_expect_eq(d.p.pad_begin[a], pb[a], "pad_begin[%d]", a);
        cr_expect_eq(d.p.pad_end[a], pe[a], "pad_end[%d]", a);
        cr_expect_eq(d.p.output_padding[a], op[a], "output_padding[%d]", a);
        cr_expect_eq(d.p.out_size[a], out[a], "out_size[%d]", a);
    }
    cr_expect_eq(d.p.has_bias, 1);
    cr_expect_eq(d.p.dtype, IOHW_F32);
    cr_expect_str_eq(d.p.data_layout, "NHWC");
    cr_expect_str_eq(d.p.weight_layout, "OIHW");
    cr_expect_str_eq(d.fill, "normal");
    cr_expect_eq(d.seed, 7);

    /* The example is already in canonical form. */
    char buf[IOHW_DESC_MAX];
    int len = iohw_desc_format(&d, buf, sizeof buf);
    cr_expect_eq(len, (int)strlen(SPEC_EXAMPLE));
    cr_expect_str_eq(buf, SPEC_EXAMPLE);
}

Test(descriptor, omitted_keys_take_the_defaults)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse("ci=3 co=5 in=4 k=3", &d, &err), 0, "%s",
                 err.msg);
    cr_expect_eq(d.p.rank, 1);
    cr_expect_eq(d.p.batch, 1);
    cr_expect_eq(d.p.groups, 1);
    cr_expect_eq(d.p.stride[0], 1);
    cr_expect_eq(d.p.dilation[0], 1);
    cr_expect_eq(d.p.pad_begin[0], 0);
    cr_expect_eq(d.p.pad_end[0], 0);
    cr_expect_eq(d.p.output_padding[0], 0);
    cr_expect_eq(d.p.out_size[0], 6); /* 3*1 + 1*2 + 1 */
    cr_expect_eq(d.p.has_bias, 0);
    cr_expect_eq(d.p.dtype, IOHW_F32);
    cr_expect_str_eq(d.p.data_layout, "NCW");
    cr_expect_str_eq(d.p.weight_layout, "IOW");
    cr_expect_str_eq(d.fill, "normal");
    cr_expect_eq(d.seed, 1);
    for (int a = 1; a < 3; a++)
        cr_expect(d.p.in_size[a] == 0 && d.p.stride[a] == 0 &&
                  d.p.dilation[a] == 0 && d.p.out_size[a] == 0,
                  "unused axis %d is zero", a);

    char buf[IOHW_DESC_MAX];
    cr_expect_geq(iohw_desc_format(&d, buf, sizeof buf), 0);
    cr_expect_str_eq(buf, "n=1 ci=3 co=5 g=1 in=4 k=3 s=1 d=1 pad=0 op=0 "
                          "bias=0 dt=f32 xl=NCW wl=IOW fill=normal seed=1");

    /* Rank 3 defaults. */
    cr_assert_eq(iohw_desc_parse("in=2x3x4 k=1 co=1 ci=1", &d, &err), 0,
                 "%s", err.msg);
    cr_expect_str_eq(d.p.data_layout, "NCDHW");
    cr_expect_str_eq(d.p.weight_layout, "IODHW");
}

Test(descriptor, a_single_value_applies_to_every_axis)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse("ci=1 co=1 in=4x5x6 k=3 s=2 d=2 pad=2:1 op=1",
                                 &d, &err), 0, "%s", err.msg);
    for (int a = 0; a < 3; a++) {
        cr_expect_eq(d.p.kernel[a], 3);
        cr_expect_eq(d.p.stride[a], 2);
        cr_expect_eq(d.p.dilation[a], 2);
        cr_expect_eq(d.p.pad_begin[a], 2);
        cr_expect_eq(d.p.pad_end[a], 1);
        cr_expect_eq(d.p.output_padding[a], 1);
        /* (L-1)*2 - 3 + 2*2 + 1 + 1 = 2L + 1: 9, 11, 13 */
        cr_expect_eq(d.p.out_size[a], 2 * d.p.in_size[a] + 1);
    }
    /* Mixed: pad per axis, symmetric on H, asymmetric on W; "2:2" is 2. */
    cr_assert_eq(iohw_desc_parse("ci=1 co=1 in=4x5 k=3 pad=2:2x0:1", &d, &err),
                 0, "%s", err.msg);
    cr_expect_eq(d.p.pad_begin[0], 2);
    cr_expect_eq(d.p.pad_end[0], 2);
    cr_expect_eq(d.p.pad_begin[1], 0);
    cr_expect_eq(d.p.pad_end[1], 1);
    char buf[IOHW_DESC_MAX];
    cr_expect_geq(iohw_desc_format(&d, buf, sizeof buf), 0);
    cr_expect(strstr(buf, " pad=2x0:1 ") != NULL, "%s", buf);
    cr_expect(strstr(buf, " k=3x3 ") != NULL, "%s", buf);
}

Test(descriptor, keys_may_come_in_any_order_and_spacing)
{
    iohw_desc a, b;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(SPEC_EXAMPLE, &a, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_desc_parse("  seed=7 fill=normal\twl=OIHW xl=NHWC dt=f32 "
                                 "bias=1 op=1x0 pad=1:0x0:1 d=1x2 s=2x1  k=3x2 "
                                 "in=5x7 g=2 co=6 ci=4 n=2\n", &b, &err),
                 0, "%s", err.msg);
    expect_same_desc(&a, &b, "reordered");
}

/* Parameters of one generated descriptor. */
typedef struct gen {
    int rank;
    int64_t n, ci, co, g, in[3], k[3], s[3], d[3], pb[3], pe[3], op[3];
    int bias;
    const char *dt;
    iohw_dtype dtype;
    const char *xl, *wl, *fill;
    uint64_t seed;
} gen;

static void put_axes(char *buf, size_t n, const char *key,
                     const int64_t *v, int rank)
{
    size_t len = strlen(buf);
    len += (size_t)snprintf(buf + len, n - len, " %s=", key);
    for (int a = 0; a < rank; a++)
        len += (size_t)snprintf(buf + len, n - len, "%s%" PRId64,
                                a > 0 ? "x" : "", v[a]);
}

/* Builds generated descriptor number i (0 <= i < 3*1000) and its text; the
 * text writes every pad as B:E (also when equal), sometimes one value for
 * every axis, and keys in a rotated order, so that parse does more than
 * invert format. */
static void make_gen(int i, gen *g, char *text, size_t n)
{
    static const char *const dts[] = {"f32", "f64", "f16", "bf16"};
    static const iohw_dtype dtv[] = {IOHW_F32, IOHW_F64, IOHW_F16, IOHW_BF16};
    static const char *const xls[3][3] = {
        {"NCW", "NWC", "CWN"},
        {"NCHW", "NHWC", "CHWN"},
        {"NCDHW", "NDHWC", "CDHWN"}};
    static const char *const wls[3][4] = {
        {"IOW", "OIW", "WOI", "GOIW"},
        {"IOHW", "OIHW", "HWOI", "GOHWI"},
        {"IODHW", "OIDHW", "DHWOI", "GOIDHW"}};
    static const char *const fills[] = {"exact", "normal", "uniform",
                                        "cancel", "range", "special"};
    static const uint64_t seeds[] = {0, 1, 123456789, UINT64_MAX};

    memset(g, 0, sizeof *g);
    g->rank = 1 + i % 3;
    int j = i / 3;
    g->n = 1 + j % 3;
    g->g = 1 + (j / 2) % 3;
    g->ci = g->g * (1 + j % 5);
    g->co = g->g * (1 + (j / 5) % 4);
    for (int a = 0; a < g->rank; a++) {
        int h = j + 7 * a;
        g->in[a] = 5 + h % 4;  /* (L-1)*S >= 4 >= the pads */
        g->k[a] = 1 + (h / 3) % 4;
        g->s[a] = 1 + (h / 2) % 3;
        g->d[a] = 1 + (h / 5) % 2;
        g->pb[a] = h % 3;
        g->pe[a] = (h / 4) % 3;
        g->op[a] = (h / 6) % 2;
    }
    /* Every fourth: one kernel and stride for all axes, written once. */
    int uniform = i % 4 == 0;
    for (int a = 1; uniform && a < g->rank; a++) {
        g->k[a] = g->k[0];
        g->s[a] = g->s[0];
    }
    g->bias = j % 2;
    g->dt = dts[j % 4];
    g->dtype = dtv[j % 4];
    g->xl = xls[g->rank - 1][j % 3];
    g->wl = wls[g->rank - 1][(j / 3) % 4];
    g->fill = fills[j % 6];
    g->seed = seeds[(j / 7) % 4];

    /* Tokens, then rotated by i. */
    char tok[16][64];
    int nt = 0;
    snprintf(tok[nt++], 64, "n=%" PRId64, g->n);
    snprintf(tok[nt++], 64, "ci=%" PRId64, g->ci);
    snprintf(tok[nt++], 64, "co=%" PRId64, g->co);
    snprintf(tok[nt++], 64, "g=%" PRId64, g->g);
    const struct {
        const char *key;
        const int64_t *v;
    } ax[] = {{"in", g->in}, {"k", g->k}, {"s", g->s}, {"d", g->d},
              {"op", g->op}};
    for (size_t m = 0; m < sizeof ax / sizeof ax[0]; m++) {
        tok[nt][0] = '\0';
        int once = uniform && (ax[m].v == g->k || ax[m].v == g->s);
        put_axes(tok[nt], 64, ax[m].key, ax[m].v, once ? 1 : g->rank);
        memmove(tok[nt], tok[nt] + 1, strlen(tok[nt])); /* drop the space */
        nt++;
    }
    size_t len = (size_t)snprintf(tok[nt], 64, "pad=");
    for (int a = 0; a < g->rank; a++)
        len += (size_t)snprintf(tok[nt] + len, 64 - len,
                                "%s%" PRId64 ":%" PRId64, a > 0 ? "x" : "",
                                g->pb[a], g->pe[a]);
    nt++;
    snprintf(tok[nt++], 64, "bias=%d", g->bias);
    snprintf(tok[nt++], 64, "dt=%s", g->dt);
    snprintf(tok[nt++], 64, "xl=%s", g->xl);
    snprintf(tok[nt++], 64, "wl=%s", g->wl);
    snprintf(tok[nt++], 64, "fill=%s", g->fill);
    snprintf(tok[nt++], 64, "seed=%" PRIu64, g->seed);
    text[0] = '\0';
    len = 0;
    for (int t = 0; t < nt; t++)
        len += (size_t)snprintf(text + len, n - len, "%s%s", t > 0 ? " " : "",
                                tok[(t + i) % nt]);
}

Test(descriptor, generated_descriptors_parse_to_their_values_and_round_trip)
{
    char text[IOHW_DESC_MAX], canon[IOHW_DESC_MAX], again[IOHW_DESC_MAX];
    iohw_error err = {{0}};
    int checked = 0;
    for (int i = 0; i < 3000; i++) {
        gen g;
        iohw_desc d1, d2;
        make_gen(i, &g, text, sizeof text);
        if (iohw_desc_parse(text, &d1, &err) != 0)
            cr_assert_fail("'%s': %s", text, err.msg);

        /* The parsed values are the generated ones. */
        int ok = d1.p.rank == (uint32_t)g.rank && d1.p.batch == g.n &&
                 d1.p.in_channels == g.ci && d1.p.out_channels == g.co &&
                 d1.p.groups == g.g && d1.p.has_bias == g.bias &&
                 d1.p.dtype == g.dtype && strcmp(d1.p.data_layout, g.xl) == 0 &&
                 strcmp(d1.p.weight_layout, g.wl) == 0 &&
                 strcmp(d1.fill, g.fill) == 0 && d1.seed == g.seed;
        for (int a = 0; a < 3; a++) {
            /* O = (L-1)S - P- - P+ + D(K-1) + A + 1, 0 on unused axes */
            int64_t o = a < g.rank ? (g.in[a] - 1) * g.s[a] - g.pb[a] -
                                         g.pe[a] + g.d[a] * (g.k[a] - 1) +
                                         g.op[a] + 1
                                   : 0;
            ok = ok && d1.p.in_size[a] == g.in[a] && d1.p.kernel[a] == g.k[a] &&
                 d1.p.stride[a] == g.s[a] && d1.p.dilation[a] == g.d[a] &&
                 d1.p.pad_begin[a] == g.pb[a] && d1.p.pad_end[a] == g.pe[a] &&
                 d1.p.output_padding[a] == g.op[a] && d1.p.out_size[a] == o;
        }
        if (!ok)
            cr_assert_fail("'%s' parsed to other values", text);

        /* format -> parse gives the same descriptor, format is stable. */
        int len = iohw_desc_format(&d1, canon, sizeof canon);
        cr_assert_geq(len, 0, "%s", text);
        cr_assert_eq((size_t)len, strlen(canon));
        if (iohw_desc_parse(canon, &d2, &err) != 0)
            cr_assert_fail("canonical '%s': %s", canon, err.msg);
        if (memcmp(&d1, &d2, sizeof d1) != 0) {
            expect_same_desc(&d1, &d2, canon);
            cr_assert_fail("'%s' does not round-trip", canon);
        }
        cr_assert_geq(iohw_desc_format(&d2, again, sizeof again), 0);
        cr_assert_str_eq(again, canon);
        /* Canonical: keys in order, no B:E where B == E. */
        cr_assert_eq(strncmp(canon, "n=", 2), 0, "%s", canon);
        cr_assert(strstr(canon, " seed=") != NULL &&
                  strstr(canon, " fill=") < strstr(canon, " seed=") &&
                  strstr(canon, " ci=") < strstr(canon, " co=") &&
                  strstr(canon, " in=") < strstr(canon, " k=") &&
                  strstr(canon, " pad=") < strstr(canon, " op="), "%s", canon);
        for (int a = 0; a < g.rank; a++) {
            char sym[32];
            snprintf(sym, sizeof sym, "%" PRId64 ":%" PRId64, g.pb[a], g.pb[a]);
            /* a symmetric pad never appears as P:P */
            if (g.pb[a] == g.pe[a] && strstr(canon, sym) != NULL)
                cr_assert_fail("'%s' writes symmetric pad as %s", canon, sym);
        }
        checked++;
    }
    cr_expect_eq(checked, 3000);
}

static iohw_desc spec_example(void)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(SPEC_EXAMPLE, &d, &err), 0, "%s", err.msg);
    return d;
}

Test(descriptor, format_refuses_a_buffer_one_byte_short_or_shorter)
{
    iohw_desc d = spec_example();
    char buf[IOHW_DESC_MAX];
    int len = (int)strlen(SPEC_EXAMPLE);
    for (int n = 0; n <= len; n++)
        cr_expect_eq(iohw_desc_format(&d, buf, (size_t)n), -1, "n = %d", n);
    cr_expect_eq(iohw_desc_format(&d, buf, (size_t)len + 1), len);
}

Test(descriptor, format_refuses_a_null_descriptor_or_buffer)
{
    iohw_desc d = spec_example();
    char buf[IOHW_DESC_MAX];
    cr_expect_eq(iohw_desc_format(NULL, buf, sizeof buf), -1);
    cr_expect_eq(iohw_desc_format(&d, NULL, sizeof buf), -1);
}

Test(descriptor, format_problem_writes_the_fill_and_seed_it_is_given)
{
    iohw_desc d = spec_example();
    char buf[IOHW_DESC_MAX];
    /* NULL fill writes the default fill. */
    cr_expect_eq(iohw_desc_format_problem(&d.p, NULL, 9, buf, sizeof buf),
                 (int)strlen(SPEC_EXAMPLE));
    cr_expect(strstr(buf, " fill=normal seed=9") != NULL, "%s", buf);
    cr_expect_geq(iohw_desc_format_problem(&d.p, "exact", 0, buf, sizeof buf),
                  0);
    cr_expect(strstr(buf, " fill=exact seed=0") != NULL, "%s", buf);
}

Test(descriptor, format_problem_refuses_a_rank_out_of_range_or_no_problem)
{
    iohw_desc d = spec_example();
    char buf[IOHW_DESC_MAX];
    iohw_problem bad = d.p;
    bad.rank = 0;
    cr_expect_eq(iohw_desc_format_problem(&bad, "normal", 1, buf, sizeof buf),
                 -1, "rank 0");
    bad.rank = 4;
    cr_expect_eq(iohw_desc_format_problem(&bad, "normal", 1, buf, sizeof buf),
                 -1, "rank 4");
    cr_expect_eq(iohw_desc_format_problem(NULL, "normal", 1, buf, sizeof buf),
                 -1);
}

Test(descriptor, fill_names_are_the_eleven_known_fills)
{
    const char *const want[] = {"exact", "normal", "uniform", "cancel",
                                "range", "special", "zeros", "subnormal",
                                "ties", "huge", "accum16"};
    const char *const *names = iohw_fill_names();
    int i = 0;
    for (; names[i] != NULL; i++) {
        cr_assert_lt(i, 11);
        cr_expect_str_eq(names[i], want[i]);
        cr_expect(iohw_fill_known(want[i]));
    }
    cr_expect_eq(i, 11);
    cr_expect_not(iohw_fill_known("Normal"));
    cr_expect_not(iohw_fill_known(""));
    cr_expect_not(iohw_fill_known("zero"));
    cr_expect_not(iohw_fill_known(NULL));
}

/* A descriptor that must be rejected and a text the message must hold. */
typedef struct bad {
    const char *text;
    const char *msg;
} bad;

#define BASE "ci=4 co=6 in=5x7 k=3x2"

static const bad BAD[] = {
    /* empty and garbage */
    {"", "empty"},
    {"   \t ", "empty"},
    {"garbage", "'garbage': expected key=value"},
    {BASE " hello", "'hello': expected key=value"},
    {BASE " =3", "'=3': missing key"},
    {BASE " s=", "'s=': empty value"},
    {"ci", "'ci': expected key=value"},
    /* unknown and repeated keys */
    {BASE " kk=3", "'kk=3': unknown key 'kk'"},
    {BASE " K=3", "unknown key 'K'"},
    {BASE " stride=2", "unknown key 'stride'"},
    {BASE " k=3", "'k=3': repeated key 'k'"},
    {BASE " seed=1 seed=1", "repeated key 'seed'"},
    /* missing required keys */
    {"co=6 in=5x7 k=3x2", "missing required key 'ci'"},
    {"ci=4 in=5x7 k=3x2", "missing required key 'co'"},
    {"ci=4 co=6 k=3x2", "missing required key 'in'"},
    {"ci=4 co=6 in=5x7", "missing required key 'k'"},
    /* bad numbers */
    {"ci=4a co=6 in=5x7 k=3x2", "'ci=4a'"},
    {"ci=a co=6 in=5x7 k=3x2", "not a decimal integer"},
    {"ci=+4 co=6 in=5x7 k=3x2", "'+4' is not a decimal integer"},
    {"ci=4.0 co=6 in=5x7 k=3x2", "'4.0' is not a decimal integer"},
    {BASE " n=1e3", "'n=1e3'"},
    {BASE " n=-", "'-' is not a decimal integer"},
    {BASE " n=0x10", "'0x10' is not a decimal integer"},
    {BASE " k==3", "'k==3'"},
    {BASE " n=99999999999999999999", "out of range"},
    {BASE " n=9223372036854775808", "out of range"},
    {BASE " n=123456789012345678901234567890123", "out of range"},
    {BASE " seed=-1", "'seed=-1': seed must be an unsigned decimal"},
    {BASE " seed=1.5", "'seed=1.5'"},
    {BASE " seed=+1", "'seed=+1'"},
    {BASE " seed=18446744073709551616", "seed is out of range"},
    {BASE " bias=yes", "'bias=yes'"},
    {BASE " bias=2", "'bias=2': bias must be 0 or 1"},
    {BASE " bias=-1", "bias must be 0 or 1"},
    /* wrong number of axes */
    {"ci=4 co=6 in=5x7 k=3x2x1", "'k=3x2x1': k has 3 values but in= gives rank 2"},
    {"ci=4 co=6 in=5x7x2x2 k=3", "'in=5x7x2x2': in has 4 values"},
    {BASE " s=1x1x1", "'s=1x1x1': s has 3 values"},
    {"ci=4 co=6 in=5 k=3 d=1x1", "'d=1x1': d has 2 values but in= gives rank 1"},
    {BASE " op=0x0x0", "'op=0x0x0': op has 3 values"},
    {BASE " pad=0x0x0", "'pad=0x0x0': pad has 3 values"},
    {"ci=4 co=6 in=5 k=3x", "'k=3x'"},
    {"ci=4 co=6 in=5x k=3", "'in=5x': empty number in in"},
    {"ci=4 co=6 in=x5 k=3", "'in=x5': empty number"},
    {"ci=4 co=6 in=5xx7 k=3", "'in=5xx7': empty number"},
    /* bad pad syntax */
    {BASE " pad=1:2:3", "'pad=1:2:3': pad '1:2:3': expected P or B:E"},
    {BASE " pad=1::2", "expected P or B:E"},
    {BASE " pad=:1", "'pad=:1': empty number in pad begin"},
    {BASE " pad=1:", "'pad=1:': empty number in pad end"},
    {BASE " pad=a:1", "'a' is not a decimal integer"},
    {BASE " pad=1x:", "empty number"},
    /* bad layouts */
    {BASE " xl=nhwc", "'xl=nhwc': a layout is 1 to 15 upper-case letters"},
    {BASE " wl=oihw", "'wl=oihw'"},
    {BASE " xl=Nchw", "'xl=Nchw'"},
    {BASE " xl=NCW", "'xl=NCW'"},
    {BASE " xl=NCDHW", "'xl=NCDHW'"},
    {BASE " xl=NCHWW", "'xl=NCHWW'"},
    {BASE " xl=GNCHW", "'xl=GNCHW'"},
    {BASE " wl=IOW", "'wl=IOW'"},
    {BASE " wl=NCHW", "'wl=NCHW'"},
    {BASE " wl=IOHWX", "'wl=IOHWX'"},
    {BASE " xl=ABCDEFGHIJKLMNOP", "'xl=ABCDEFGHIJKLMNOP'"},
    {BASE " xl=N-CHW", "'xl=N-CHW'"},
    /* bad dtype and fill */
    {BASE " dt=F32", "'dt=F32': unknown dtype"},
    {BASE " dt=f8", "'dt=f8': unknown dtype"},
    {BASE " dt=float32", "'dt=float32': unknown dtype"},
    {BASE " fill=ones", "'fill=ones': unknown fill"},
    {BASE " fill=Normal", "'fill=Normal': unknown fill"},
    {BASE " fill=exactexactexactexact", "unknown fill"},
    /* negative and zero values */
    {BASE " n=-1", "'n=-1': n = -1: must be >= 1"},
    {BASE " n=0", "'n=0': n = 0: must be >= 1"},
    {"ci=-4 co=6 in=5x7 k=3x2", "'ci=-4': ci = -4: must be >= 1"},
    {"ci=4 co=0 in=5x7 k=3x2", "'co=0': co = 0: must be >= 1"},
    {BASE " g=-2", "'g=-2': g = -2: must be >= 1"},
    {BASE " g=0", "'g=0'"},
    {"ci=4 co=6 in=5x-7 k=3x2", "'in=5x-7': in = -7: must be >= 1"},
    {"ci=4 co=6 in=5x7 k=0x2", "'k=0x2': k = 0: must be >= 1"},
    {BASE " s=0", "'s=0': s = 0: must be >= 1"},
    {BASE " s=-2x1", "'s=-2x1'"},
    {BASE " d=0x1", "'d=0x1': d = 0: must be >= 1"},
    {BASE " pad=-1", "'pad=-1': pad = -1: must be >= 0"},
    {BASE " pad=0:-1", "'pad=0:-1': pad end = -1: must be >= 0"},
    {BASE " op=-1x0", "'op=-1x0': op = -1: must be >= 0"},
    /* groups not dividing the channels (whole problem checks) */
    {"ci=4 co=6 g=3 in=5x7 k=3x2", "groups = 3 does not divide in_channels"},
    {"ci=4 co=6 g=4 in=5x7 k=3x2", "groups = 4 does not divide out_channels"},
    /* output size below 1: W: 0 - 1 - 1 + 0 + 0 + 1 = -1 */
    {"ci=1 co=1 in=1 k=1 pad=1", "out_size[0] (W): the formula gives -1"},
    {"ci=1 co=1 in=4x1 k=1 pad=0x1:0", "out_size[1] (W): the formula gives 0"},
    /* too large */
    {"ci=1 co=1 in=100000x100000 k=1", "tensor x: 10000000000 elements"},
    {"ci=1 co=1 in=2 k=1 s=9223372036854775807", "overflows"},
};

Test(descriptor, every_error_path_is_reported_with_the_token)
{
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        iohw_desc d, before;
        iohw_error err = {{0}};
        memset(&d, 0xA5, sizeof d);
        before = d;
        int rc = iohw_desc_parse(BAD[i].text, &d, &err);
        cr_expect_eq(rc, -1, "'%s' was accepted", BAD[i].text);
        if (rc != -1)
            continue;
        cr_expect(strstr(err.msg, BAD[i].msg) != NULL,
                  "'%s': message '%s' lacks '%s'", BAD[i].text, err.msg,
                  BAD[i].msg);
        cr_expect(strncmp(err.msg, "descriptor", 10) == 0, "'%s': '%s'",
                  BAD[i].text, err.msg);
        cr_expect_eq(memcmp(&d, &before, sizeof d), 0,
                     "'%s' changed the output on failure", BAD[i].text);
        cr_expect_eq(iohw_desc_parse(BAD[i].text, &d, NULL), -1);
    }
}

Test(descriptor, null_arguments_are_errors)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_expect_eq(iohw_desc_parse(NULL, &d, &err), -1);
    cr_expect(strstr(err.msg, "NULL") != NULL, "%s", err.msg);
    cr_expect_eq(iohw_desc_parse(BASE, NULL, &err), -1);
    cr_expect(strstr(err.msg, "NULL") != NULL, "%s", err.msg);
}

Test(descriptor, extreme_valid_values_parse_exactly)
{
    iohw_desc d;
    iohw_error err = {{0}};
    /* leading zeros are plain decimal; seed takes the whole uint64 range */
    cr_assert_eq(iohw_desc_parse("ci=004 co=06 in=05 k=03 seed=18446744073709551615",
                                 &d, &err), 0, "%s", err.msg);
    cr_expect_eq(d.p.in_channels, 4);
    cr_expect_eq(d.p.kernel[0], 3);
    cr_expect_eq(d.seed, UINT64_MAX);
    /* A huge stride on one input position: O = 0 + 0 + 1. */
    cr_assert_eq(iohw_desc_parse("ci=1 co=1 in=1 k=1 s=9223372036854775807",
                                 &d, &err), 0, "%s", err.msg);
    cr_expect_eq(d.p.stride[0], INT64_MAX);
    cr_expect_eq(d.p.out_size[0], 1);
    /* The full message of a long token is clipped, not overflowed. */
    char text[4096];
    memset(text, 'x', sizeof text);
    memcpy(text, "ci=", 3);
    text[sizeof text - 1] = '\0';
    cr_expect_eq(iohw_desc_parse(text, &d, &err), -1);
    cr_expect_lt(strlen(err.msg), (size_t)IOHW_ERROR_MAX);
}
