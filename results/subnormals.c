/*
 * results/subnormals.c - the value of --subnormals (result.h): parsed into
 * a mask of dtypes, and the mask written back.
 */
#include "results/result.h"

#include <stdio.h>
#include <string.h>

#include "oracle/dtype.h"

int iohw_subnormals_parse(const char *text, unsigned *mask, iohw_error *err)
{
    if (text == NULL || mask == NULL)
        return iohw_error_set(err, "no value");
    if (strcmp(text, "ieee") == 0) {
        *mask = 0;
        return 0;
    }
    if (strcmp(text, "flush") == 0) {
        *mask = IOHW_SUBNORMALS_FLUSH_ALL;
        return 0;
    }
    if (strncmp(text, "flush:", 6) != 0)
        return iohw_error_set(err, "'%s': expected ieee, flush or flush:DTYPES "
                              "(e.g. flush:bf16,f32)", text);
    unsigned m = 0;
    const char *s = text + 6;
    for (;;) {
        size_t len = strcspn(s, ",");
        char name[16];
        iohw_dtype dt;
        snprintf(name, sizeof name, "%.*s", (int)(len < 15 ? len : 15), s);
        if (len == 0 || len >= sizeof name || iohw_dtype_parse(name, &dt) != 0
            || !iohw_dtype_is_float(dt))
            return iohw_error_set(err, "'%s': unknown dtype '%.*s' (f32, f64, "
                                  "f16 or bf16)", text, (int)len, s);
        m |= IOHW_SUBNORMALS_FLUSH_BIT(dt);
        if (s[len] == '\0')
            break;
        s += len + 1;
    }
    *mask = m;
    return 0;
}

void iohw_subnormals_format(unsigned mask, char *buf, size_t n)
{
    static const iohw_dtype order[] = {IOHW_F32, IOHW_F64, IOHW_F16, IOHW_BF16};
    size_t len;
    if (buf == NULL || n == 0)
        return;
    mask &= IOHW_SUBNORMALS_FLUSH_ALL;
    if (mask == 0 || mask == IOHW_SUBNORMALS_FLUSH_ALL) {
        snprintf(buf, n, "%s", mask == 0 ? "ieee" : "flush");
        return;
    }
    snprintf(buf, n, "flush");
    for (int k = 0, first = 1; k < 4; k++) {
        if (!(mask & IOHW_SUBNORMALS_FLUSH_BIT(order[k])))
            continue;
        len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", first ? ":" : ",",
                 iohw_dtype_name(order[k]));
        first = 0;
    }
}
