/*
 * sandbox/spawn.c - the child processes of the tool (spawn.h).
 */
#include "sandbox/spawn.h"

#include <unistd.h>

#include "sandbox/worker.h"

#ifdef IOHW_COVERAGE
void __gcov_dump(void);
#endif

void iohw__exit_child(int code)
{
#ifdef IOHW_COVERAGE
    __gcov_dump();
#endif
    _exit(code);
}

int iohw_run_memory_limit_works(void)
{
    return !iohw_worker_asan();
}
