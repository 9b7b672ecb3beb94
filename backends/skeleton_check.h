/*
 * backends/skeleton_check.h - the first check every backend that links the
 * oracle makes of a problem (skeleton.h has the rest of the skeleton).
 */
#ifndef IOHW_BACKEND_SKELETON_CHECK_H
#define IOHW_BACKEND_SKELETON_CHECK_H

#include "backends/skeleton.h"
#ifdef __cplusplus
extern "C" {
#endif
#include "oracle/error.h"
#include "oracle/problem.h"
#ifdef __cplusplus
}
#endif

/* 0 when the host's problem struct is complete and the problem valid; else
 * -1 with the reason in err. */
static inline int skeleton_check(const iohw_problem *p, iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "problem is NULL");
    if (p->struct_size < sizeof(iohw_problem))
        return iohw_error_set(err, "problem struct_size %u is smaller than "
                              "%zu", (unsigned)p->struct_size,
                              sizeof(iohw_problem));
    return iohw_problem_validate(p, err) != 0 ? -1 : 0;
}

#endif
