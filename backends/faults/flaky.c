/*
 * backends/faults/flaky.c - misbehaves on its first run() only, then is
 * correct: like a kernel that times out once on a loaded machine or dies
 * in a race.  Built twice (backends/faults/CMakeLists.txt): FLAKY_HANG
 * never returns from that first call, FLAKY_CRASH dies with SIGSEGV in it.
 *
 * "First" is across processes (every case runs in its own worker): the
 * first run() that creates the file named by the environment variable
 * IOHW_FLAKY_MARK (O_CREAT | O_EXCL) misbehaves; every later one finds the
 * file and computes correctly.  Without the variable it is always correct.
 * Not a seeded bug class: the mutation test does not count it; `iohw fuzz`
 * must report it as flaky (specification section 7).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "fault_common.h"

#ifdef FLAKY_CRASH
const char iohw__fault_name[] = "flaky_crash";
const char iohw__fault_about[] =
    "seeded misbehaviour: SIGSEGV on the first run() only ($IOHW_FLAKY_MARK)";
#else
const char iohw__fault_name[] = "flaky_hang";
const char iohw__fault_about[] =
    "seeded misbehaviour: never returns from the first run() only "
    "($IOHW_FLAKY_MARK)";
#endif

/* 1 for the first call of all (the one that made the mark). */
static int first_call(void)
{
    const char *mark = getenv("IOHW_FLAKY_MARK");
    if (mark == NULL || mark[0] == '\0')
        return 0;
    int fd = open(mark, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

static int before(const iohw_problem *p, iohw_error *err)
{
    (void)p;
    (void)err;
    if (first_call()) {
#ifdef FLAKY_CRASH
        raise(SIGSEGV);
#else
        iohw__fault_sleep_forever();
#endif
    }
    return IOHW_OK;
}

const fault_spec iohw__fault_spec = {.before = before};
