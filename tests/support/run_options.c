/*
 * tests/support/run_options.c - see run_options.h.
 */
#include "support/run_options.h"

#include <string.h>

iohw_run_options iohw_test_run_options(const char *backend,
                                       const char *const *inputs)
{
    iohw_run_options o;
    memset(&o, 0, sizeof o);
    o.backend = backend;
    o.inputs = inputs;
    o.ninputs = 1;
    o.shard_index = o.shard_count = 1;
    o.jobs = 2;
    o.timeout = 300; /* headroom: ASan on a loaded machine */
    o.diagnose = 1;
    o.progress = -1;
    return o;
}
