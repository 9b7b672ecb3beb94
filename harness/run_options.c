/*
 * harness/run_options.c - the defaults of `iohw run` (run.h), the value of
 * its --subnormals option, and the options of a run that its repro commands
 * carry.
 */
#include "harness/run.h"

#include <stdio.h>
#include <string.h>

#include "harness/timeouts.h"
#include "oracle/dtype.h"

void iohw_run_options_init(iohw_run_options *o)
{
    memset(o, 0, sizeof *o);
    o->shard_index = o->shard_count = 1;
    o->jobs = 0;
    o->timeout = IOHW_TIMEOUT_FLOOR_S;
    o->timeout_scaled = 1;
    o->memory_limit_mb = IOHW_RUN_MEMORY_LIMIT_MB;
    o->diagnose = 1;
    o->breaker = IOHW_RUN_BREAKER;
    o->subnormals_flush = 0;    /* ieee */
    o->show = IOHW_RUN_SHOW;
    o->repeat = 0;              /* no timing beyond run()'s seconds */
    o->speed_reference = 1;     /* with --repeat */
}

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

void iohw_repro_options_of_run(const iohw_run_options *run,
                               iohw_repro_options *o)
{
    memset(o, 0, sizeof *o);
    o->backend = run->backend;
    o->adapt_layout = run->adapt_layout;
    o->timeout_fixed = !run->timeout_scaled;
    o->timeout = run->timeout;
    o->memory_limit_mb = run->memory_limit_mb == IOHW_RUN_MEMORY_LIMIT_MB
                             ? -1
                             : run->memory_limit_mb;
    o->subnormals_flush = run->subnormals_flush;
    o->rounding = run->rounding;
}
