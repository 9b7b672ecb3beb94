/*
 * harness/result.c - names, meanings and badness of the result statuses,
 * all generated from IOHW_RESULT_STATUS_MAP (harness/result.h) so that the
 * three never drift.
 */
#include "harness/result.h"

#include <string.h>

static const char *const status_names[] = {
#define IOHW_XX(name, bad, meaning) #name,
    IOHW_RESULT_STATUS_MAP(IOHW_XX)
#undef IOHW_XX
};

static const char *const status_meanings[] = {
#define IOHW_XX(name, bad, meaning) meaning,
    IOHW_RESULT_STATUS_MAP(IOHW_XX)
#undef IOHW_XX
};

static const int status_bad[] = {
#define IOHW_XX(name, bad, meaning) bad,
    IOHW_RESULT_STATUS_MAP(IOHW_XX)
#undef IOHW_XX
};

/* 1 when s is one of the enum's statuses (the enum may be unsigned). */
static int status_known(iohw_result_status s)
{
    return (int)s >= 0 && (int)s < (int)IOHW_RESULT_STATUS_COUNT;
}

const char *iohw_result_status_name(iohw_result_status s)
{
    return status_known(s) ? status_names[s] : "?";
}

const char *iohw_result_status_meaning(iohw_result_status s)
{
    return status_known(s) ? status_meanings[s] : "an unknown status";
}

int iohw_result_status_bad(iohw_result_status s)
{
    return status_known(s) ? status_bad[s] : 1;
}

int iohw_result_status_parse(const char *name, iohw_result_status *s)
{
    if (name == NULL || s == NULL)
        return -1;
    for (int i = 0; i < (int)IOHW_RESULT_STATUS_COUNT; i++) {
        if (strcmp(name, status_names[i]) == 0) {
            *s = (iohw_result_status)i;
            return 0;
        }
    }
    return -1;
}

int iohw_result_flushed(const iohw_result *r)
{
    return r != NULL && r->status == IOHW_RESULT_PASS &&
           strstr(r->message, IOHW_RESULT_NOTE_FLUSHED) != NULL;
}
