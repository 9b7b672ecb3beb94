/*
 * tests/test_descriptor_dir.c - the descriptor key dir= (specification
 * sections 6 and 13): every accepted name in any case, the bias that
 * benchdnn's names imply, the canonical form (dir= only for a backward
 * problem), round trips, and the errors.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/problem.h"

#define BASE "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0"

static iohw_desc parse_ok(const char *text)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "'%s': %s", text, err.msg);
    return d;
}

static void parse_fails(const char *text, const char *needle)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(text, &d, &err), -1, "'%s' parsed", text);
    cr_expect(strstr(err.msg, needle) != NULL, "'%s': message '%s' lacks '%s'", text,
              err.msg, needle);
}

Test(descriptor_dir, every_name_in_any_case)
{
    const struct {
        const char *text;
        int32_t direction, has_bias;
    } rows[] = {
        {BASE, IOHW_DIR_FWD, 0},
        {BASE " dir=fwd", IOHW_DIR_FWD, 0},
        {BASE " dir=FWD bias=1", IOHW_DIR_FWD, 1},
        {BASE " dir=fwd_d", IOHW_DIR_FWD, 0},
        {BASE " dir=FWD_B", IOHW_DIR_FWD, 1},
        {BASE " dir=Fwd_b bias=1", IOHW_DIR_FWD, 1},
        {BASE " dir=bwd_d", IOHW_DIR_BWD_D, 0},
        {BASE " dir=BWD_D bias=0", IOHW_DIR_BWD_D, 0},
        {BASE " dir=bwd_w", IOHW_DIR_BWD_W, 0},
        {BASE " dir=bwd_w bias=1", IOHW_DIR_BWD_W, 1},
        {BASE " dir=BWD_WB", IOHW_DIR_BWD_W, 1},
        {BASE " bias=1 dir=bwd_wb", IOHW_DIR_BWD_W, 1},
        {"ci=1 co=1 in=3 k=2 dt=f64 dir=bwd_d", IOHW_DIR_BWD_D, 0},
        {"ci=1 co=1 in=3 k=2 dt=bf16 dir=bwd_w", IOHW_DIR_BWD_W, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        iohw_desc d = parse_ok(rows[i].text);
        cr_expect_eq(d.p.direction, rows[i].direction, "'%s': direction %d",
                     rows[i].text, (int)d.p.direction);
        cr_expect_eq(d.p.has_bias, rows[i].has_bias, "'%s': has_bias %d",
                     rows[i].text, (int)d.p.has_bias);
    }
}

/* The canonical form: dir= last, only for a backward problem. */
Test(descriptor_dir, canonical_form_names_backward_directions_only)
{
    const struct {
        const char *text, *want;
    } rows[] = {
        {"ci=1 co=1 in=3 k=2 dir=fwd_b",
         "n=1 ci=1 co=1 g=1 in=3 k=2 s=1 d=1 pad=0 op=0 bias=1 dt=f32 xl=NCW wl=IOW "
         "fill=normal seed=1"},
        {"ci=1 co=1 in=3 k=2 dir=bwd_d",
         "n=1 ci=1 co=1 g=1 in=3 k=2 s=1 d=1 pad=0 op=0 bias=0 dt=f32 xl=NCW wl=IOW "
         "fill=normal seed=1 dir=bwd_d"},
        {"ci=1 co=1 in=3 k=2 dir=BWD_WB",
         "n=1 ci=1 co=1 g=1 in=3 k=2 s=1 d=1 pad=0 op=0 bias=1 dt=f32 xl=NCW wl=IOW "
         "fill=normal seed=1 dir=bwd_w"},
        {"ci=1 co=1 in=6 k=5 s=3 auto_pad=same_upper out=17 conv=onnx dir=bwd_w",
         "n=1 ci=1 co=1 g=1 in=6 k=5 s=3 d=1 pad=1:2 op=0 bias=0 dt=f32 xl=NCW wl=IOW "
         "fill=normal seed=1 auto_pad=same_upper out=17 conv=onnx dir=bwd_w"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        iohw_desc d = parse_ok(rows[i].text);
        char buf[IOHW_DESC_MAX];
        cr_assert_gt(iohw_desc_format(&d, buf, sizeof buf), 0);
        cr_expect_str_eq(buf, rows[i].want, "'%s'", rows[i].text);
    }
}

Test(descriptor_dir, round_trips)
{
    const char *texts[] = {
        BASE " dir=bwd_d dt=f16 xl=NHWC wl=GOHWI",
        BASE " dir=bwd_w bias=1 dt=f64 wl=HWOI",
        BASE " dir=bwd_w",
        "ci=3 co=3 g=3 in=2x2x2 k=2 dir=BWD_D",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        iohw_desc a = parse_ok(texts[i]);
        char buf[IOHW_DESC_MAX], again[IOHW_DESC_MAX];
        cr_assert_gt(iohw_desc_format(&a, buf, sizeof buf), 0);
        iohw_desc b = parse_ok(buf);
        cr_expect_eq(memcmp(&a.p, &b.p, sizeof a.p), 0, "'%s' -> '%s'", texts[i], buf);
        cr_assert_gt(iohw_desc_format(&b, again, sizeof again), 0);
        cr_expect_str_eq(again, buf);
    }
}

Test(descriptor_dir, errors_name_the_token_and_the_rule)
{
    parse_fails(BASE " dir=bwd", "descriptor token 'dir=bwd': unknown direction "
                "(fwd, bwd_d, bwd_w, or benchdnn's fwd_d, fwd_b, bwd_d, bwd_w, bwd_wb");
    parse_fails(BASE " dir=backward_data_and_more", "'dir=backward_data_and_more': "
                "unknown direction");
    parse_fails(BASE " dir=", "empty value");
    parse_fails(BASE " dir=bwd_d dir=bwd_w", "repeated key 'dir'");
    parse_fails(BASE " dir=fwd_b bias=0", "'dir=fwd_b': says bias=1, but the "
                "descriptor has bias=0");
    parse_fails(BASE " bias=1 dir=fwd_d", "'dir=fwd_d': says bias=0");
    parse_fails(BASE " bias=0 dir=bwd_wb", "'dir=bwd_wb': says bias=1");
    parse_fails(BASE " bias=1 dir=bwd_d", "direction BWD_D with has_bias = 1: the "
                "bias takes no part in dx");
    parse_fails("ci=1 co=1 in=3 k=2 dt=u8 dir=bwd_w", "direction BWD_W: backward "
                "problems are float only");
    parse_fails("ci=1 co=1 in=3 k=2 dt=s8 dir=bwd_d", "backward problems are float only");
    parse_fails(BASE " direction=bwd_d", "unknown key 'direction' (keys: n ci co g");
}
