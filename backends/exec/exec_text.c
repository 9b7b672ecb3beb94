/*
 * backends/exec/exec_text.c - messages of any length: what a program says
 * (its name, version, refusal reasons, error messages) and the paths and
 * commands that name it reach the harness whole, never cut to a fixed
 * buffer (docs/EXEC_PROTOCOL.md, "Protocol 3").
 */
#include "backends/exec/exec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *iohw__exec_vfmt(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s != NULL)
        vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    return s;
}

char *iohw__exec_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = iohw__exec_vfmt(fmt, ap);
    va_end(ap);
    return s;
}

int iohw__exec_say(char **msg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = iohw__exec_vfmt(fmt, ap);
    va_end(ap);
    free(*msg);
    *msg = s;
    return -1;
}

int iohw__exec_prefix(char **msg, const char *prefix)
{
    char *s = iohw__exec_fmt("%s: %s", prefix, *msg != NULL ? *msg : "");
    free(*msg);
    *msg = s;
    return -1;
}

const char *iohw__exec_text(const char *msg)
{
    return msg != NULL ? msg : "out of memory (for a message)";
}
