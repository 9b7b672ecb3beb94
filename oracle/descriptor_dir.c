/*
 * oracle/descriptor_dir.c - the descriptor key `dir=` (specification
 * sections 6 and 13): the direction of the problem.
 *
 * Accepted, in any case: fwd, bwd_d, bwd_w, and oneDNN benchdnn's five
 * names.  fwd_d, fwd_b and bwd_wb also say whether there is a bias: a
 * `bias=` that contradicts them is an error; without `bias=` they set it.
 * fwd, bwd_d and bwd_w leave the bias to `bias=` (bwd_w with bias=1 is
 * BWD_WB; bwd_d with bias=1 is refused by the problem's validation, as is
 * a backward problem of a quantized dtype).
 */
#include <stdint.h>
#include <strings.h>

#include "oracle/descriptor_internal.h"
#include "oracle/problem.h"

static const struct {
    const char *name;
    int32_t direction;
} OWN_NAMES[] = {
    {"fwd", IOHW_DIR_FWD}, {"bwd_d", IOHW_DIR_BWD_D}, {"bwd_w", IOHW_DIR_BWD_W},
};

int iohw__desc_parse_dir(const token tok[K_COUNT], const int seen[K_COUNT],
                         iohw_problem *p, iohw_error *err)
{
    if (!seen[K_DIR])
        return 0;
    const token *t = &tok[K_DIR];
    char word[8];
    int32_t dir = -1, bias = 0;
    int implies_bias = 0;
    if (iohw__desc_copy_word(t, word, sizeof word) == 0) {
        for (size_t i = 0; i < sizeof OWN_NAMES / sizeof OWN_NAMES[0]; i++)
            if (strcasecmp(word, OWN_NAMES[i].name) == 0)
                dir = OWN_NAMES[i].direction;
        if (dir < 0 && iohw_direction_parse(word, &dir, &bias) == 0)
            implies_bias = 1;
    }
    if (dir < 0)
        return iohw__desc_tok_error(err, t, "unknown direction (fwd, bwd_d, bwd_w, or "
                                    "benchdnn's fwd_d, fwd_b, bwd_d, bwd_w, bwd_wb; "
                                    "any case)");
    if (implies_bias && seen[K_BIAS] && p->has_bias != bias)
        return iohw__desc_tok_error(err, t, "says bias=%d, but the descriptor has "
                                    "bias=%d", (int)bias, (int)p->has_bias);
    if (implies_bias)
        p->has_bias = bias;
    p->direction = dir;
    return 0;
}

const char *iohw__desc_dir_name(const iohw_problem *p)
{
    for (size_t i = 0; i < sizeof OWN_NAMES / sizeof OWN_NAMES[0]; i++)
        if (p->direction == OWN_NAMES[i].direction)
            return OWN_NAMES[i].name;
    return "?";
}
