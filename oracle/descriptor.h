/*
 * oracle/descriptor.h - the one-line problem descriptor (specification
 * section 6, docs/SPEC.md), e.g.
 *   n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1
 *   dt=f32 xl=NHWC wl=OIHW fill=normal seed=7
 * and for a quantized problem (section 11.4) keys after dt, e.g.
 *   dt=u8 wdt=s8 ydt=u8 zp=3,0,-5 round=half_even m=scales pc=1 sx=0.5
 *   sy=0.25 ... fill=qrandom
 */
#ifndef IOHW_DESCRIPTOR_H
#define IOHW_DESCRIPTOR_H

#include <stddef.h>
#include <stdint.h>

#include "iohw/backend.h"
#include "oracle/error.h"

/* Values a per-channel key (sw, qmul, qshift) holds at most. */
#define IOHW_DESC_LIST_MAX 256

/* Bytes of the longest descriptor, NUL included, so that no descriptor is
 * ever cut or refused for its length: the problem's keys and numbers (1024)
 * and the per-channel lists at their longest, IOHW_DESC_LIST_MAX values
 * each (sw "%.9g" at most 15 bytes, qmul 10 digits, qshift 3 bytes, each
 * with its comma). */
#define IOHW_DESC_MAX (1024 + IOHW_DESC_LIST_MAX * (16 + 11 + 4))

/* Which quantization parameters the descriptor states (iohw_desc.stated):
 * a fill keeps a stated one and chooses the others (specification section
 * 11.4). */
enum {
    IOHW_STATED_SX = 1,
    IOHW_STATED_SY = 2,
    IOHW_STATED_SW = 4,
    IOHW_STATED_QMUL = 8,
    IOHW_STATED_QSHIFT = 16
};

typedef struct iohw_desc {
    iohw_problem p;  /* finished and validated by iohw_desc_parse */
    char fill[16];   /* one of iohw_fill_names(), or a recorded fill */
    uint64_t seed;
    uint32_t stated; /* IOHW_STATED_* bits */
    /* sw=, qmul=, qshift= (specification section 11.4): n_* values, 1 (every
     * channel) or C_out (pc=1); 0 when the key is not given. */
    int32_t n_sw, n_qmul, n_qshift;
    float sw[IOHW_DESC_LIST_MAX];
    int32_t qmul[IOHW_DESC_LIST_MAX];
    int32_t qshift[IOHW_DESC_LIST_MAX];
} iohw_desc;

/* Parses a descriptor.  Required keys: ci, co, in, k.  Defaults: n=1, g=1,
 * s=1, d=1, pad=0, op=0, bias=0, dt=f32, xl=NC+spatial, wl=IO+spatial,
 * fill=normal, seed=1.  Rank is the number of entries of `in`; every
 * per-axis key must have that many (or exactly one, which applies to every
 * axis).  Unknown keys, repeated keys and bad values are errors whose message
 * quotes the token.  auto_pad, out and conv state a framework convention
 * (specification section 12): it is resolved into pad, op and out_size, and
 * a pad or op also given must be what it resolves to.  The parsed problem
 * is finished (out_size) and validated.  dir (specification section 13)
 * sets the direction (default forward): fwd, bwd_d, bwd_w, or benchdnn's
 * names, any case; fwd_d, fwd_b and bwd_wb also set the bias.  A quantized
 * problem's sw (scales form), qmul and qshift (fixed form) are lists of 1 or
 * co values (specification section 11.4) kept in d's arrays. */
int iohw_desc_parse(const char *text, iohw_desc *d, iohw_error *err);

/* Writes the canonical form: every key, in the order of the example above,
 * per-axis values always written per axis, pads as begin:end only where they
 * differ, then auto_pad, out and conv when a convention is stated, then
 * dir=bwd_d or dir=bwd_w for a backward problem (none when forward); the
 * stated sw, qmul, qshift lists after sy.  Parsing
 * the result gives back the same descriptor.  Returns the
 * length, or -1 when buf (size n) is too small. */
int iohw_desc_format(const iohw_desc *d, char *buf, size_t n);

/* Same, from a problem plus fill and seed. */
int iohw_desc_format_problem(const iohw_problem *p, const char *fill,
                             uint64_t seed, char *buf, size_t n);

/* The fills the project knows, NULL-terminated: exact, normal, uniform,
 * cancel, range, special. */
const char *const *iohw_fill_names(void);
/* 1 for the float fills and the quantized ones. */
int iohw_fill_known(const char *name);
/* 1 for a fill of quantized problems (qrandom). */
int iohw_fill_is_quant(const char *name);
/* 1 for a fill a case file records but no generator makes: "onehot", the
 * one-hot inputs of a case `iohw shrink` wrote.  A descriptor may name it
 * (it parses, so the case's problem is read back); generating it fails. */
int iohw_fill_recorded(const char *name);

#endif
