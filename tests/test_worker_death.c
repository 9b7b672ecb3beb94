/*
 * tests/test_worker_death.c - how a worker that could not set itself up is
 * described (sandbox/worker_death.c).
 */
#include <criterion/criterion.h>

#include <string.h>

#include "sandbox/worker.h"

/* Linux wait statuses: the exit code in bits 8-15. */
#define EXITED(code) ((code) << 8)

Test(worker_death, exit_70_outside_a_backend_call_is_the_workers_own_setup)
{
    char buf[512];
    iohw_worker_note note;
    memset(&note, 0, sizeof note);
    note.call = IOHW_CALL_NONE;
    iohw_worker_death_message(EXITED(70), &note, buf, (int)sizeof buf);
    cr_expect_str_eq(buf, "exited with status 70: the worker could not set itself up "
                          "(no memory for its state, or its pipes could not be "
                          "arranged)");
}

Test(worker_death, exit_70_inside_a_backend_call_is_the_backends)
{
    char buf[512];
    iohw_worker_note note;
    memset(&note, 0, sizeof note);
    note.call = IOHW_CALL_RUN;
    iohw_worker_death_message(EXITED(70), &note, buf, (int)sizeof buf);
    cr_expect_str_eq(buf, "exited with status 70 in run()");
    iohw_worker_death_message(EXITED(70), NULL, buf, (int)sizeof buf);
    cr_expect_str_eq(buf, "exited with status 70");
}
