/*
 * judge/diagnose_qgroups.c - the groups of quantized misreadings that one
 * case may fail to tell apart, and the common name each group is named by
 * then (specification section 11.5).  Two or more misreadings matching
 * one output are named by their group's common name when they all belong
 * to it, and not at all otherwise.  Members are rows of
 * judge/diagnose_quant.c's TABLE, by name; a row may be in several groups
 * (zp_y added before rounding is in each "another mode" group).
 */
#include <string.h>

#include "judge/diagnose_quant_internal.h"

#define MAX_MEMBERS 6

/* zp_y added before rounding changes only how ties round: a case where
 * another rounding gives the same output cannot tell the two apart. */
#define ZP_Y "zp_y added before rounding"

typedef struct qgroup {
    const char *name, *meaning;
    const char *members[MAX_MEMBERS]; /* NULL after the last */
} qgroup;

#define OTHER_TIES(asked, m1, m2, m3)                                                 \
    {"ties rounded in another mode where " asked " was asked",                        \
     "your kernel rounds ties otherwise than " asked "; the case does not tell which " \
     "way (SPEC 11.3)",                                                               \
     {m1 " where " asked " was asked", m2 " where " asked " was asked",               \
      m3 " where " asked " was asked", ZP_Y, NULL}}

#define EVEN "ties rounded to even"
#define AWAY "ties rounded half away from zero"
#define UP "ties rounded half up"
#define DOUBLE "gemmlowp's double rounding"

static const qgroup GROUPS[] = {
    /* Without its nudge, the doubling high multiply truncates, and
     * gemmlowp's rounding divide then equals one rounding half away from
     * zero whenever it shifts right: the case cannot tell those apart. */
    {"rounding inside the fixed-point multiply differs from gemmlowp's",
     "your kernel rounds inside the fixed-point multiply otherwise than gemmlowp (its nudge, "
     "its rounding divide)",
     {EVEN " where gemmlowp was asked", AWAY " where gemmlowp was asked",
      UP " where gemmlowp was asked", "gemmlowp's doubling high multiply without its nudge",
      "gemmlowp's rounding divide by a power of two as a plain shift", NULL}},
    OTHER_TIES("half_even", AWAY, UP, DOUBLE),
    OTHER_TIES("half_away", EVEN, UP, DOUBLE),
    OTHER_TIES("half_up", EVEN, AWAY, DOUBLE),
    {"a zero point of x or w not subtracted",
     "your kernel multiplies a raw x_q or w_q (the case does not tell which): subtract zp_x "
     "and zp_w",
     {"x's zero point not subtracted", "w's zero point not subtracted",
      "zero points of x and w not subtracted", NULL}},
};
#define NGROUPS ((int)(sizeof GROUPS / sizeof GROUPS[0]))

int iohw__dgq_group_count(void)
{
    return NGROUPS;
}

const char *iohw__dgq_group_name(int g)
{
    return g >= 0 && g < NGROUPS ? GROUPS[g].name : NULL;
}

const char *iohw__dgq_group_meaning(int g)
{
    return g >= 0 && g < NGROUPS ? GROUPS[g].meaning : NULL;
}

int iohw__dgq_in_group(int g, const char *name)
{
    for (int i = 0; g >= 0 && g < NGROUPS && name != NULL && i < MAX_MEMBERS &&
                    GROUPS[g].members[i] != NULL; i++)
        if (strcmp(GROUPS[g].members[i], name) == 0)
            return 1;
    return 0;
}
