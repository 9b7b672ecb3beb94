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
