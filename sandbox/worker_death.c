/*
 * sandbox/worker_death.c - saying how a worker died and what its last fault
 * looks like (see worker.h).
 */
#include "sandbox/worker.h"

#include "sandbox/spawn.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* A fault below this address is a NULL pointer plus a small offset (the
 * lowest pages are never mapped). */
#define NULL_PAGE_BYTES 4096

static const char *const region_names[IOHW_REGION_COUNT] = {
    "x", "w", "bias", "y", "requant", "dy"};

/* What a fault at addr suggests, or NULL when it is outside every buffer. */
static int describe_address(const iohw_worker_note *note, uintptr_t addr,
                            char *buf, size_t n)
{
    for (int k = 0; k < IOHW_REGION_COUNT; k++) {
        const iohw_worker_region *rg = &note->regions[k];
        const char *name = region_names[k];
        /* A backward case's output region holds dx, or dw then db. */
        if (k == IOHW_REGION_Y && strncmp(note->call_name, "run_bwd_", 8) == 0)
            name = note->call_name[8] == 'd' ? "dx" : "dw (then db)";
        int input = k != IOHW_REGION_Y;
        if (rg->map_hi == 0 || addr < rg->map_lo || addr >= rg->map_hi)
            continue;
        if (addr >= rg->data_lo && addr < rg->data_hi) {
            if (input)
                snprintf(buf, n, "the address is inside %s, an input mapped "
                         "read-only: looks like a write to an input", name);
            else
                snprintf(buf, n, "the address is inside %s", name);
        } else if (addr >= rg->data_hi) {
            char dist[64] = "the first byte";
            if (addr > rg->data_hi)
                snprintf(dist, sizeof dist, "%llu bytes",
                         (unsigned long long)(addr - rg->data_hi + 1));
            snprintf(buf, n, "the address is %s past the end of %s: looks "
                     "like an out-of-bounds %s", dist, name,
                     input ? "read" : "write (or read)");
        } else {
            snprintf(buf, n, "the address is %llu byte(s) before the start "
                     "of %s: looks like an out-of-bounds %s",
                     (unsigned long long)(rg->data_lo - addr), name,
                     input ? "access" : "write (or read)");
        }
        return 1;
    }
    return 0;
}

void iohw_worker_death_message(int wait_status, const iohw_worker_note *note,
                               char *buf, int n)
{
    if (n <= 0)
        return;
    /* Where the worker was: in a backend call or in the harness's own work. */
    int call = note != NULL ? atomic_load(&note->call) : -1;
    char in[40] = "";
    if (call == IOHW_CALL_RUN || call == IOHW_CALL_SUPPORTS)
        snprintf(in, sizeof in, " in %.24s",
                 note->call_name[0] != '\0' ? note->call_name
                 : call == IOHW_CALL_RUN     ? "run()"
                                             : "supports()");
    const char *outside = call == IOHW_CALL_NONE
                              ? "; the worker was not in a backend call (it "
                                "was loading the backend or mapping the case's "
                                "tensors)"
                              : "";
    if (WIFEXITED(wait_status) && call == IOHW_CALL_NONE &&
        WEXITSTATUS(wait_status) == IOHW__EXIT_CHILD_SETUP) {
        snprintf(buf, (size_t)n, "exited with status %d: the worker could not "
                 "set itself up (no memory for its state, or its pipes could "
                 "not be arranged)", IOHW__EXIT_CHILD_SETUP);
        return;
    }
    if (WIFEXITED(wait_status)) {
        snprintf(buf, (size_t)n, "exited with status %d%s%s",
                 WEXITSTATUS(wait_status), in, outside);
        return;
    }
    if (!WIFSIGNALED(wait_status)) {
        snprintf(buf, (size_t)n, "the worker stopped (wait status %d)",
                 wait_status);
        return;
    }
    int sig = WTERMSIG(wait_status);
    const char *abbrev = sigabbrev_np(sig);
    const char *text = strsignal(sig);
    char head[160];
    if (abbrev != NULL)
        snprintf(head, sizeof head, "killed by signal SIG%s (%s)%s", abbrev,
                 text ? text : "?", in);
    else
        snprintf(head, sizeof head, "killed by signal %d%s", sig, in);

    char where[256] = "";
    if (note != NULL && note->signo == sig && note->addr_valid &&
        (sig == SIGSEGV || sig == SIGBUS)) {
        uintptr_t addr = note->fault_addr;
        if (!describe_address(note, addr, where, sizeof where)) {
            if (addr < NULL_PAGE_BYTES)
                snprintf(where, sizeof where, "at address 0x%llx (a NULL "
                         "pointer?)", (unsigned long long)addr);
            else
                snprintf(where, sizeof where, "at address 0x%llx, outside "
                         "the case's tensors", (unsigned long long)addr);
        }
    }
    if (where[0] != '\0')
        snprintf(buf, (size_t)n, "%s; %s%s", head, where, outside);
    else
        snprintf(buf, (size_t)n, "%s%s", head, outside);
}
