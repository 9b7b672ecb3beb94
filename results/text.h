/*
 * results/text.h - the text of results: every name, path, descriptor,
 * message, diagnosis and warning a result holds (results/result.h), of any
 * length.
 *
 * A result is a value: it is copied by assignment, returned, sent through
 * a pipe and held in arrays, and nobody frees a part of it.  Its texts are
 * therefore kept by the process, not by the result: iohw_text_keep and
 * iohw_text_fmt return a copy that lives until the process exits, and
 * equal texts share one copy, so that a run of thousands of cases holds
 * each file name, tag list and recurring message once.  Nothing is ever
 * cut: a text is as long as what was given (specification section 7).
 * When memory runs out the text becomes IOHW_TEXT_NO_MEMORY, which says
 * so, never a shortened one.
 */
#ifndef IOHW_TEXT_H
#define IOHW_TEXT_H

#include <stdarg.h>
#include <stddef.h>

#define IOHW_TEXT_NO_MEMORY "(text lost: out of memory)"

/* The kept copy of s; NULL and "" give the one empty text. */
const char *iohw_text_keep(const char *s);

/* The kept copy of the first n bytes of s (which need not end there). */
const char *iohw_text_keep_n(const char *s, size_t n);

/* The kept text that printf would write. */
const char *iohw_text_fmt(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
const char *iohw_text_vfmt(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));

/* a, then sep and b when both are not empty: "a; b", "a", "b" or "". */
const char *iohw_text_join(const char *a, const char *sep, const char *b);

#endif
