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
    size_t hn = strnlen(head, sizeof head);
    size_t on = strnlen(old, sizeof old);
    if (hn > sizeof err->msg - 3)
        hn = sizeof err->msg - 3;
    if (on > sizeof err->msg - 3 - hn)
        on = sizeof err->msg - 3 - hn;
    memcpy(err->msg, head, hn);
    memcpy(err->msg + hn, ": ", 2);
    memcpy(err->msg + hn + 2, old, on);
    err->msg[hn + 2 + on] = '\0';
    return -1;
}
