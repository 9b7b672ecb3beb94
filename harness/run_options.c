/*
 * harness/run_options.c - the defaults of `iohw run` (run.h).
 */
#include "harness/run.h"

#include <string.h>

#include "harness/timeouts.h"

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
}
