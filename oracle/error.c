/* oracle/error.c - filling in iohw_error messages. */
#include "oracle/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int iohw_error_set(iohw_error *err, const char *fmt, ...)
{
    if (err == NULL)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int iohw_error_prefix(iohw_error *err, const char *fmt, ...)
{
    if (err == NULL)
        return -1;
    char head[IOHW_ERROR_MAX];
    char old[IOHW_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    snprintf(err->msg, sizeof err->msg, "%s: %s", head, old);
    return -1;
}
