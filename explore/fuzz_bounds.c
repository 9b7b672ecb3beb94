/*
 * explore/fuzz_bounds.c - what `iohw fuzz --filter` fixes of the draws
 * (fuzz.h, specification section 7).
 *
 * Each condition of the filter (harness/filter.h) that bounds a member the
 * fuzzer draws narrows that member's range: = fixes it, < <= > >= bound
 * it, != excludes a value; dt, fill, xl, wl and dir= fix or exclude
 * values (a backward direction is drawn only when dir= names it,
 * specification section 13).  A condition no drawn problem can meet is refused
 * here, naming it; the others (out, tag, id) are checked on the draw.
 */
#include "explore/fuzz.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "harness/filter.h"
#include "oracle/dtype.h"

#define DRAWN_DTYPES (1u << IOHW_F32 | 1u << IOHW_F64 | 1u << IOHW_F16 | 1u << IOHW_BF16)

static const char *const fills[] = {"normal", "exact", "uniform", "special",
                                    "range", "cancel", NULL};

const char *const *iohw_fuzz_fills(void)
{
    return fills;
}

static const char *const num_keys[5] = {"rank", "n", "ci", "co", "g"};
static const char *const axis_keys[7] = {"k", "s", "d", "pb", "pe", "op", "in"};
static const int64_t axis_min[7] = {1, 1, 1, 0, 0, 0, 1};

int iohw_fuzz_range_holds(const iohw_fuzz_range *g, int64_t v)
{
    if (v < g->lo || v > g->hi)
        return 0;
    for (int i = 0; i < g->nne; i++)
        if (g->ne[i] == v)
            return 0;
    return 1;
}

static void range_init(iohw_fuzz_range *g, int64_t lo, int64_t hi)
{
    memset(g, 0, sizeof *g);
    g->lo = lo;
    g->hi = hi;
}

/* Narrows g by "OP v"; -1 when nothing is left. */
static int narrow(iohw_fuzz_range *g, const char *op, int64_t v)
{
    if (strcmp(op, "=") == 0) {
        g->lo = v > g->lo ? v : g->lo;
        g->hi = v < g->hi ? v : g->hi;
    } else if (strcmp(op, "!=") == 0) {
        if (g->nne < IOHW_FUZZ_NE_MAX)
            g->ne[g->nne++] = v;
    } else if (strcmp(op, "<") == 0 || strcmp(op, "<=") == 0) {
        int64_t h = op[1] == '=' ? v : v - 1;
        g->hi = h < g->hi ? h : g->hi;
    } else {
        int64_t l = op[1] == '=' ? v : v + 1;
        g->lo = l > g->lo ? l : g->lo;
    }
    for (int64_t x = g->lo; x <= g->hi; x++)
        if (iohw_fuzz_range_holds(g, x))
            return 0;   /* at most IOHW_FUZZ_NE_MAX + 1 steps */
    return -1;
}

static int key_index(const char *const *keys, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i], key) == 0)
            return i;
    return -1;
}

/* dir=text (specification section 13): the directions and the bias it
 * allows, narrowed in b.  -1 for an unknown direction, -2 when no
 * direction is left. */
static int dir_condition(const char *text, iohw_fuzz_bounds *b)
{
    static const struct {
        const char *name;
        unsigned dirs;
        int bias;
    } v[] = {
        {"fwd", 1u << IOHW_DIR_FWD, -1},   {"fwd_d", 1u << IOHW_DIR_FWD, 0},
        {"fwd_b", 1u << IOHW_DIR_FWD, 1},  {"bwd_d", 1u << IOHW_DIR_BWD_D, 0},
        {"bwd_w", 1u << IOHW_DIR_BWD_W, -1}, {"bwd_wb", 1u << IOHW_DIR_BWD_W, 1},
        {"bwd", 1u << IOHW_DIR_BWD_D | 1u << IOHW_DIR_BWD_W, -1},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        if (strcasecmp(text, v[i].name) != 0)
            continue;
        /* 0 until a dir= is seen (forward only is set after the parse). */
        b->directions = b->directions ? b->directions & v[i].dirs : v[i].dirs;
        if (b->directions == 0)
            return -2;
        if (v[i].bias >= 0)
            b->bias = v[i].bias;
        return 0;
    }
    return -1;
}

/* A string condition: dt, fill, xl, wl, dir.  0, or -1 with the reason. */
static int string_condition(const iohw_filter_condition *c, iohw_fuzz_bounds *b,
                            const char *text, iohw_error *err)
{
    const int eq = strcmp(c->op, "=") == 0;
    if (strcmp(c->key, "dt") == 0) {
        iohw_dtype dt;
        if (iohw_dtype_parse(c->text, &dt) != 0)
            return iohw_error_set(err, "filter condition \"%s\": unknown dtype "
                                  "\"%s\"", text, c->text);
        unsigned bit = 1u << dt;
        if (eq && !(DRAWN_DTYPES & bit))
            return iohw_error_set(err, "filter condition \"%s\": the fuzzer "
                                  "draws float problems only (dt f32, f64, f16, "
                                  "bf16)", text);
        b->dtypes = eq ? b->dtypes & bit : b->dtypes & ~bit;
    } else if (strcmp(c->key, "fill") == 0) {
        int i = key_index(fills, 6, c->text);
        if (eq && i < 0)
            return iohw_error_set(err, "filter condition \"%s\": the fuzzer "
                                  "draws the fills normal, exact, uniform, "
                                  "special, range and cancel", text);
        if (i >= 0)
            b->fills = eq ? b->fills & 1u << i : b->fills & ~(1u << i);
    } else if ((c->key[0] == 'x' || c->key[0] == 'w') && eq) {
        char *dst = c->key[0] == 'x' ? b->xl : b->wl;
        size_t n = strlen(c->text);
        if (n < 3 || n > 5)
            return iohw_error_set(err, "filter condition \"%s\": a layout of "
                                  "rank 1, 2 or 3 has 3 to 5 letters", text);
        snprintf(dst, 8, "%s", c->text);
        if (narrow(&b->num[0], "=", (int64_t)n - 2) != 0)
            return iohw_error_set(err, "filter condition \"%s\": its rank %d "
                                  "contradicts the filter's rank", text, (int)n - 2);
    } else if (strcmp(c->key, "dir") == 0 && eq) {
        const int rc = dir_condition(c->text, b);
        if (rc == -1)
            return iohw_error_set(err, "filter condition \"%s\": unknown "
                                  "direction (fwd, fwd_d, fwd_b, bwd, bwd_d, "
                                  "bwd_w, bwd_wb)", text);
        if (rc == -2)
            return iohw_error_set(err, "filter condition \"%s\": contradicts "
                                  "the filter's other dir=", text);
    }
    if (b->dtypes == 0 || b->fills == 0)
        return iohw_error_set(err, "filter condition \"%s\": excludes every %s "
                              "the fuzzer draws", text,
                              b->dtypes == 0 ? "dtype" : "fill");
    return 0;
}

/* One condition; 0, or -1 with a message naming it. */
static int one_condition(const iohw_filter_condition *c, iohw_fuzz_bounds *b,
                         iohw_error *err)
{
    char text[256];
    snprintf(text, sizeof text, "%s%s%s", c->key, c->op, c->text);
    int i = key_index(num_keys, 5, c->key);
    if (i >= 0) {
        if (narrow(&b->num[i], c->op, c->number) != 0)
            return iohw_error_set(err, "filter condition \"%s\": no problem the "
                                  "fuzzer draws has it%s", text,
                                  i == 0 ? " (ranks 1 to 3)" : "");
        return 0;
    }
    i = key_index(axis_keys, 7, c->key);
    if (i >= 0) {
        if (narrow(&b->axis[i], c->op, c->number) != 0)
            return iohw_error_set(err, "filter condition \"%s\": no problem has "
                                  "it (%s is at least %lld)", text, c->key,
                                  (long long)axis_min[i]);
        return 0;
    }
    return string_condition(c, b, text, err);
}

int iohw_fuzz_bounds_parse(const char *filter, iohw_fuzz_bounds *b,
                           iohw_error *err)
{
    memset(b, 0, sizeof *b);
    range_init(&b->num[0], 1, 3);
    for (int i = 1; i < 5; i++)
        range_init(&b->num[i], 1, INT64_MAX / 4);
    for (int i = 0; i < 7; i++)
        range_init(&b->axis[i], axis_min[i], INT64_MAX / 4);
    b->dtypes = DRAWN_DTYPES;
    b->fills = (1u << 6) - 1;
    b->bias = -1;
    b->directions = 0;
    if (filter == NULL) {
        b->directions = 1u << IOHW_DIR_FWD;
        return 0;
    }
    iohw_filter *f = iohw_filter_parse(filter, err);
    if (f == NULL)
        return -1;
    int rc = 0;
    for (int i = 0; i < iohw_filter_count(f) && rc == 0; i++) {
        iohw_filter_condition c;
        iohw_filter_condition_at(f, i, &c);
        rc = one_condition(&c, b, err);
    }
    iohw_filter_free(f);
    if (b->directions == 0)
        b->directions = 1u << IOHW_DIR_FWD;
    return rc;
}
