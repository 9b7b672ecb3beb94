/* oracle/error.c - filling in iohw_error messages. */
#include "oracle/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Ends a message that was cut at msg's size with "..." (on a UTF-8
 * character boundary). */
static void mark_cut(char *msg, size_t size)
{
    size_t n = size - 4;
    while (n > 0 && ((unsigned char)msg[n] & 0xC0) == 0x80)
        n--;
    memcpy(msg + n, "...", 4);
}

int iohw_error_set(iohw_error *err, const char *fmt, ...)
{
    if (err == NULL)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof err->msg)
        mark_cut(err->msg, sizeof err->msg);
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
    int cut = hn + 2 + on >= sizeof err->msg;
    if (hn > sizeof err->msg - 3)
        hn = sizeof err->msg - 3;
    if (on > sizeof err->msg - 3 - hn)
        on = sizeof err->msg - 3 - hn;
    memcpy(err->msg, head, hn);
    memcpy(err->msg + hn, ": ", 2);
    memcpy(err->msg + hn + 2, old, on);
    err->msg[hn + 2 + on] = '\0';
    if (cut)
        mark_cut(err->msg, sizeof err->msg);
    return -1;
}
