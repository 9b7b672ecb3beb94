/*
 * harness/filter.h - choosing cases: --filter expressions, --shard I/N.
 *
 * A filter is a comma-separated list of conditions, all of which must hold:
 *   KEY OP VALUE   with OP one of = != < <= > >=
 *   tag=NAME       the case has tag NAME (tag!=NAME: it has not)
 *   id=GLOB        the case id matches a shell glob (fnmatch)
 *   GLOB           a bare word is an id glob
 * Numeric keys: rank, n (batch), ci, co, g (groups), and the per-axis keys
 * k, s, d, pb (pad_begin), pe (pad_end), op, in, out, which compare the
 * largest value over the axes.  String keys: dt (dtype), xl, wl, fill.
 * Example: "rank=3,g>1,tag=dilated", "ct2d.*,dt=f16".
 */
#ifndef IOHW_FILTER_H
#define IOHW_FILTER_H

#include <stdint.h>

#include "cases/case.h"
#include "oracle/error.h"

typedef struct iohw_filter iohw_filter;

/* Parses an expression; NULL with a message naming the bad condition. */
iohw_filter *iohw_filter_parse(const char *expr, iohw_error *err);
/* 1 when the case (attributes loaded) satisfies every condition. */
int iohw_filter_match(const iohw_filter *f, const iohw_case *c);
void iohw_filter_free(iohw_filter *f);

/* One condition as parsed, for a caller that draws problems inside a
 * filter (`iohw fuzz`): key is the key's name ("id" for a bare glob), op
 * the operator's text, number the value of a numeric key, text the value
 * as written (trimmed). */
typedef struct iohw_filter_condition {
    const char *key;
    const char *op;
    int64_t number;
    const char *text;
} iohw_filter_condition;

/* The number of conditions, and condition i (0 .. count-1); 0 or -1. */
int iohw_filter_count(const iohw_filter *f);
int iohw_filter_condition_at(const iohw_filter *f, int i,
                             iohw_filter_condition *out);

/* Parses "I/N" (1 <= I <= N); 0 or -1. */
int iohw_shard_parse(const char *text, int *index, int *count, iohw_error *err);
/* 1 when case id belongs to shard index of count: a stable hash of the id,
 * so the partition does not depend on the order or the set of files. */
int iohw_shard_match(const char *case_id, int index, int count);

#endif
