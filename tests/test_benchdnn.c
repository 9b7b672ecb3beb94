/*
 * tests/test_benchdnn.c - benchdnn's deconvolution descriptors and batch
 * files (cli/benchdnn.h; specification section 14).  The descriptors are
 * written from oneDNN's tests/benchdnn/doc/knobs_desc.md and driver_conv.md
 * (entries, defaults g 1, mb 2, strides 1, dilations 0, padding deduced
 * from the output size, a higher axis filling the lower ones); every
 * expected size and padding below is worked out by hand from those rules:
 * out = (in - 1) * s + (k - 1) * (d + 1) + 1 - pad_begin - pad_end.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/benchdnn.h"
#include "oracle/descriptor.h"

static iohw__bdnn_desc parse_ok(const char *text)
{
    iohw__bdnn_desc d;
    iohw_error e = {{0}};
    cr_assert_eq(iohw__bdnn_parse_desc(text, &d, &e), 0, "%s: %s", text, e.msg);
    return d;
}

static void parse_fails(const char *text, const char *want)
{
    iohw__bdnn_desc d;
    iohw_error e = {{0}};
    cr_assert_eq(iohw__bdnn_parse_desc(text, &d, &e), -1, "%s accepted", text);
    cr_expect(strstr(e.msg, want) != NULL, "'%s' does not say '%s'", e.msg, want);
}

/* The iohw descriptor of text under dir and dt. */
static void expect_iohw(const char *text, const char *dir, const char *dt, int64_t mb,
                        const char *want)
{
    iohw__bdnn_desc d = parse_ok(text);
    iohw__bdnn_setting s = {dir, dt, mb};
    char buf[512];
    iohw_error e = {{0}};
    cr_assert_eq(iohw__bdnn_to_iohw(&d, &s, buf, sizeof buf, &e), 0, "%s", e.msg);
    cr_expect_str_eq(buf, want);
}

Test(benchdnn, an_upsampling_layer_with_its_output_size)
{
    /* span = 6 * 2 + 3 = 15; ph 1 given, oh 14: the end padding is 0. */
    iohw__bdnn_desc d = parse_ok("g2mb2ic16ih7oc16oh14kh3sh2ph1n\"up:1\"");
    cr_expect_eq(d.rank, 2);
    cr_expect_eq(d.g, 2);
    cr_expect_eq(d.mb, 2);
    cr_expect_eq(d.in[0], 7);
    cr_expect_eq(d.in[1], 7);
    cr_expect_eq(d.out[1], 14);
    cr_expect_eq(d.pad_begin[0], 1);
    cr_expect_eq(d.pad_end[0], 0);
    cr_expect_str_eq(d.name, "up:1");
    expect_iohw("g2mb2ic16ih7oc16oh14kh3sh2ph1n\"up:1\"", "FWD_B", "f32", 0,
                "n=2 g=2 ci=16 co=16 in=7x7 k=3x3 s=2x2 d=1x1 pad=1:0x1:0 op=0x0 "
                "dt=f32 dir=fwd_b");
}

Test(benchdnn, defaults_and_a_deduced_output)
{
    /* 1-d: mb 2, g 1, stride 1, no padding: ow = 4 + 2 + 1 = 7. */
    iohw__bdnn_desc d = parse_ok("ic3iw5oc2kw3");
    cr_expect_eq(d.rank, 1);
    cr_expect_eq(d.mb, 2);
    cr_expect_eq(d.g, 1);
    cr_expect_eq(d.out[0], 7);
    cr_expect_eq(d.s[0], 1);
    /* ph 1 on both sides: oh = 4 + 3 - 2 = 5; h fills w. */
    d = parse_ok("ic4ih5oc4kh3ph1");
    cr_expect_eq(d.rank, 2);
    cr_expect_eq(d.out[0], 5);
    cr_expect_eq(d.out[1], 5);
    cr_expect_eq(d.pad_end[1], 1);
    /* d fills h and w: a cube. */
    d = parse_ok("ic2id3oc2kd2_sd2");
    cr_expect_eq(d.rank, 3);
    cr_expect_eq(d.in[2], 3);
    cr_expect_eq(d.k[2], 2);
    cr_expect_eq(d.s[1], 2);
    cr_expect_eq(d.out[2], 6);  /* 2 * 2 + 1 + 1 */
}

Test(benchdnn, padding_deduced_from_the_output_size)
{
    /* span = 4 * 2 + 3 = 11, oh 10: ph = (11 - 10) / 2 = 0, the rest (1) at
     * the end. */
    expect_iohw("mb1ic4ih5oc4oh10kh3sh2", "FWD_D", "f16", 0,
                "n=1 g=1 ci=4 co=4 in=5x5 k=3x3 s=2x2 d=1x1 pad=0:1x0:1 op=0x0 "
                "dt=f16 dir=fwd_d");
    /* oh 12 > span 11: the end padding is -1, iohw's output_padding 1. */
    expect_iohw("mb1ic4ih5oc4oh12kh3sh2ph0", "BWD_D", "f32", 0,
                "n=1 g=1 ci=4 co=4 in=5x5 k=3x3 s=2x2 d=1x1 pad=0:0x0:0 op=1x1 "
                "dt=f32 dir=bwd_d");
}

Test(benchdnn, dilation_counts_from_zero)
{
    /* dh 1 is iohw's d=2: oh = 3 + 2 * 2 + 1 = 8. */
    iohw__bdnn_desc d = parse_ok("ic2ih4oc2kh3dh1");
    cr_expect_eq(d.out[0], 8);
    expect_iohw("ic2ih4oc2kh3dh1", "BWD_WB", "bf16", 3,
                "n=3 g=1 ci=2 co=2 in=4x4 k=3x3 s=1x1 d=2x2 pad=0:0x0:0 op=0x0 "
                "dt=bf16 dir=bwd_wb");
}

Test(benchdnn, int8_types_and_directions)
{
    expect_iohw("mb1ic2iw4oc2kw3", "FWD_I", "u8:s8:s32", 0,
                "n=1 g=1 ci=2 co=2 in=4 k=3 s=1 d=1 pad=0:0 op=0 dt=u8 wdt=s8 ydt=s32 "
                "dir=fwd_d");
    iohw__bdnn_desc d = parse_ok("mb1ic2iw4oc2kw3");
    char buf[256];
    iohw_error e = {{0}};
    iohw__bdnn_setting s = {"BWD_D", "u8:s8:u8", 0};
    cr_expect_eq(iohw__bdnn_to_iohw(&d, &s, buf, sizeof buf, &e), 1);
    cr_expect(strstr(e.msg, "backward directions are float") != NULL, "%s", e.msg);
    s = (iohw__bdnn_setting){"FWD_B", "bf16:bf16:f32", 0};
    cr_expect_eq(iohw__bdnn_to_iohw(&d, &s, buf, sizeof buf, &e), 1);
    cr_expect(strstr(e.msg, "--dt=bf16:bf16:f32") != NULL, "%s", e.msg);
    s = (iohw__bdnn_setting){"BWD_X", "f32", 0};
    cr_expect_eq(iohw__bdnn_to_iohw(&d, &s, buf, sizeof buf, &e), 1);
    cr_expect(strstr(e.msg, "--dir=BWD_X") != NULL, "%s", e.msg);
}

Test(benchdnn, malformed_descriptors_name_the_entry)
{
    parse_fails("ic3oc2", "no spatial entry");
    parse_fails("ih5kh3oc2", "ic and oc");
    parse_fails("ic2id3ih3oc2kd2kh2", "h and w entries both");
    parse_fails("ic2iw2oc2kw1pw5", "ow deduced as");
    parse_fails("ic2iwxoc2", "'iw' has no value");
    parse_fails("zz3", "no entry at 'zz3'");
    parse_fails("ic2iw3oc2", "kw");
    parse_fails("ic99999999999iw3oc2kw3", "out of range");
    char name[200];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    char text[300];
    snprintf(text, sizeof text, "ic2iw3oc2kw3n%s", name);
    parse_fails(text, "longer than");
}

/* The benchdnn line of an iohw problem, and back. */
static void expect_line(const char *iohw, const char *want)
{
    iohw_desc d;
    iohw_error e = {{0}};
    cr_assert_eq(iohw_desc_parse(iohw, &d, &e), 0, "%s", e.msg);
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    cr_assert_eq(iohw__show_as_benchdnn(&d.p, "ct.x.0001", f, &e), 0, "%s", e.msg);
    fclose(f);
    cr_expect_str_eq(text, want);
    free(text);
}

Test(benchdnn, a_problem_as_benchdnn_s_line)
{
    /* out = 6 * 2 + 2 + 1 - 1 - 0 + 1 = 15 (op 1 -> padding_r -1). */
    expect_line("n=2 ci=4 co=6 g=2 in=7 k=3 s=2 pad=1:0 op=1 bias=1",
                "./benchdnn --deconv --dir=FWD_B --dt=f32 g2mb2ic4iw7oc6ow15kw3sw2pw1"
                "n\"ct.x.0001\"\n");
    expect_line("ci=3 co=2 in=4x5 k=3x2 s=1x2 d=2x1 pad=1 dt=bf16 dir=bwd_d",
                "./benchdnn --deconv --dir=BWD_D --dt=bf16 mb1ic3ih4iw5oc2oh6ow8kh3kw2"
                "sh1sw2ph1pw1dh1dw0n\"ct.x.0001\"\n");
}

/* The line read back gives the same problem. */
Test(benchdnn, a_line_reads_back_as_the_same_problem)
{
    static const char *const PROBLEMS[] = {
        "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 dt=f32 dir=fwd_d",
        "ci=2 co=3 in=3x2x4 k=2x3x2 s=1x2x2 pad=1x0x0:1 dt=f16 dir=bwd_w",
        "ci=8 co=8 g=8 in=9 k=4 s=3 d=2 pad=2:1 op=2 dt=f64 dir=bwd_wb",
    };
    for (size_t i = 0; i < sizeof PROBLEMS / sizeof PROBLEMS[0]; i++) {
        iohw_desc a, b;
        iohw_error e = {{0}};
        cr_assert_eq(iohw_desc_parse(PROBLEMS[i], &a, &e), 0, "%s", e.msg);
        char line[512] = {0};
        FILE *f = fmemopen(line, sizeof line - 1, "w");
        cr_assert_eq(iohw__show_as_benchdnn(&a.p, "c", f, &e), 0, "%s", e.msg);
        fclose(f);
        char *desc = strrchr(line, ' ') + 1, dir[16], dt[8];
        cr_assert_eq(sscanf(line, "./benchdnn --deconv --dir=%15s --dt=%7s", dir, dt), 2);
        desc[strcspn(desc, "\n")] = '\0';
        iohw__bdnn_desc d = parse_ok(desc);
        iohw__bdnn_setting s = {dir, dt, 0};
        char back[512];
        cr_assert_eq(iohw__bdnn_to_iohw(&d, &s, back, sizeof back, &e), 0, "%s", e.msg);
        cr_assert_eq(iohw_desc_parse(back, &b, &e), 0, "%s: %s", back, e.msg);
        cr_expect_eq(memcmp(b.p.out_size, a.p.out_size, sizeof a.p.out_size), 0, "%s", back);
        cr_expect_eq(memcmp(b.p.pad_begin, a.p.pad_begin, sizeof a.p.pad_begin), 0, "%s", back);
        cr_expect_eq(b.p.direction, a.p.direction, "%s", back);
        cr_expect_eq(b.p.has_bias, a.p.has_bias, "%s", back);
        cr_expect_eq(b.p.dtype, a.p.dtype, "%s", back);
        cr_expect_eq(b.p.groups, a.p.groups, "%s", back);
        cr_expect_eq(memcmp(b.p.dilation, a.p.dilation, sizeof a.p.dilation), 0, "%s", back);
    }
}

Test(benchdnn, what_benchdnn_cannot_state_is_said)
{
    iohw_desc d;
    iohw_error e = {{0}};
    char buf[256];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    cr_assert_eq(iohw_desc_parse("ci=2 co=2 in=4 k=3 dt=u8 wdt=s8 zp=3,0,0", &d, &e), 0,
                 "%s", e.msg);
    cr_expect_eq(iohw__show_as_benchdnn(&d.p, "q", f, &e), 1);
    cr_expect(strstr(e.msg, "quantized") != NULL, "%s", e.msg);
    /* op 2 at stride 2 and pad_end 0: padding_r -2 is not above -2. */
    cr_assert_eq(iohw_desc_parse("ci=2 co=2 in=4 k=3 s=2 d=3 op=2", &d, &e), 0, "%s", e.msg);
    cr_expect_eq(iohw__show_as_benchdnn(&d.p, "q", f, &e), 1);
    cr_expect(strstr(e.msg, "output_padding 2") != NULL, "%s", e.msg);
    fclose(f);
}

/* --- batch files --------------------------------------------------------- */

typedef struct seen {
    char problems[64][160];
    int nproblems;
    char notes[16][512];
    int nnotes, errors;
} seen;

static void on_problem(void *ctx, const iohw__bdnn_item *it)
{
    seen *s = ctx;
    if (s->nproblems < 64)
        snprintf(s->problems[s->nproblems++], sizeof s->problems[0], "%s %s %s mb%lld",
                 it->desc_text, it->setting.dir, it->setting.dt,
                 (long long)it->setting.mb);
}

static void on_note(void *ctx, int error, const char *msg)
{
    seen *s = ctx;
    s->errors += error;
    if (s->nnotes < 16)
        snprintf(s->notes[s->nnotes++], sizeof s->notes[0], "%s", msg);
}

static seen *read_batch(const char *name, const char *text)
{
    static seen s;
    memset(&s, 0, sizeof s);
    iohw__bdnn_sink sink = {on_problem, on_note, &s};
    int errors = iohw__bdnn_read(name, text, &sink);
    cr_expect_eq(errors, s.errors);
    return &s;
}

static int noted(const seen *s, const char *a, const char *b)
{
    for (int i = 0; i < s->nnotes; i++)
        if (strstr(s->notes[i], a) != NULL && (b == NULL || strstr(s->notes[i], b) != NULL))
            return 1;
    return 0;
}

Test(benchdnn, options_apply_to_the_descriptors_after_them)
{
    seen *s = read_batch("t", "# a comment ic9iw9oc9kw9\n"
                         "ic2iw3oc2kw3   # the defaults: FWD_B, f32\n"
                         "--dir=BWD_D,BWD_WB --dt=f32,bf16 --mb=4\n"
                         "ic2iw4oc2kw3\n"
                         "--reset --cfg=u8s8u8\n"
                         "ic2iw5oc2kw3\n");
    cr_assert_eq(s->nproblems, 6);
    cr_expect_str_eq(s->problems[0], "ic2iw3oc2kw3 FWD_B f32 mb0");
    cr_expect_str_eq(s->problems[1], "ic2iw4oc2kw3 BWD_D f32 mb4");
    cr_expect_str_eq(s->problems[2], "ic2iw4oc2kw3 BWD_D bf16 mb4");
    cr_expect_str_eq(s->problems[3], "ic2iw4oc2kw3 BWD_WB f32 mb4");
    cr_expect_str_eq(s->problems[4], "ic2iw4oc2kw3 BWD_WB bf16 mb4");
    cr_expect_str_eq(s->problems[5], "ic2iw5oc2kw3 FWD_B u8:s8:u8 mb0");
    cr_expect_eq(s->errors, 0);
}

Test(benchdnn, match_other_drivers_and_ignored_options)
{
    seen *s = read_batch("t", "--match=.*kw3[^0-9].* ic2iw3oc2kw3n\"a\" ic2iw3oc2kw5n\"b\"\n"
                         "--conv ic2iw3oc2kw3n\"conv\" --deconv --match= ic2iw3oc2kw7\n"
                         "--attr-post-ops=relu --attr-scales=src:common:2 --skip-impl=ref\n"
                         "--stag=axb --mb=x --dir= --skip-impl=gemm\n");
    cr_assert_eq(s->nproblems, 2);
    cr_expect_str_eq(s->problems[0], "ic2iw3oc2kw3n\"a\" FWD_B f32 mb0");
    cr_expect_str_eq(s->problems[1], "ic2iw3oc2kw7 FWD_B f32 mb0");
    cr_expect(noted(s, "t:2: --conv", "deconvolution problems only"));
    cr_expect(noted(s, "--attr-post-ops ignored", "deconvolution alone"));
    cr_expect(noted(s, "--stag ignored", "layouts"));
    cr_expect(noted(s, "--skip-impl ignored", NULL));
    cr_expect(noted(s, "--attr-scales ignored", NULL));
    int skip_notes = 0;
    for (int i = 0; i < s->nnotes; i++)
        skip_notes += strstr(s->notes[i], "--skip-impl") != NULL;
    cr_expect_eq(skip_notes, 1, "an ignored option is noted once");
    cr_expect(noted(s, "t:4: --mb=x", "whole number"));
    cr_expect(noted(s, "--dir=", "comma-separated"));
    cr_expect_eq(s->errors, 3);
}

/* Writes text into IOHW_TEST_TMP/name; its path. */
static const char *tmp_file(const char *name, const char *text, size_t n)
{
    static char path[4][512];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, sizeof path[0], "%s/benchdnn-%d-%s", IOHW_TEST_TMP, (int)getpid(), name);
    FILE *f = fopen(p, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(text, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
    return p;
}

Test(benchdnn, batch_files_include_files_beside_them)
{
    char inc[64];
    snprintf(inc, sizeof inc, "--dt=f16 --batch=benchdnn-%d-shapes\n", (int)getpid());
    static const char SHAPES[] = "ic2iw3oc2kw3 # one\nic2ih3oc2kh3\n";
    const char *shapes = tmp_file("shapes", SHAPES, strlen(SHAPES));
    const char *top = tmp_file("top", inc, strlen(inc));
    seen *s = read_batch(top, NULL);
    cr_assert_eq(s->nproblems, 2, "%s", s->nnotes ? s->notes[0] : "");
    cr_expect_str_eq(s->problems[1], "ic2ih3oc2kh3 FWD_B f16 mb0");
    remove(shapes);
    remove(top);
}

Test(benchdnn, hostile_batch_files_are_refused_with_a_reason)
{
    char self[128];
    snprintf(self, sizeof self, "--batch=benchdnn-%d-self ic2iw3oc2kw3\n", (int)getpid());
    const char *loop = tmp_file("self", self, strlen(self));
    seen *s = read_batch(loop, NULL);
    cr_expect(noted(s, "includes itself", NULL));
    cr_expect_eq(s->nproblems, 1);
    const char *bin = tmp_file("bin", "ic2iw3\0oc2kw3", 14);
    s = read_batch(bin, NULL);
    cr_expect(noted(s, "not a benchdnn batch file", "NUL byte"));
    cr_expect_eq(s->nproblems, 0);
    s = read_batch("t", "--batch=/nonexistent/iohw/shapes ic2iw3oc2kw3");
    cr_expect(noted(s, "cannot open the batch file '/nonexistent/iohw/shapes'", NULL));
    cr_expect_eq(s->nproblems, 1);
    s = read_batch("t", "--batch=/proc/self/fd");
    cr_expect(noted(s, "not a regular file", NULL));
    remove(loop);
    remove(bin);
}
