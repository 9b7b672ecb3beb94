/*
 * backends/rude/alloc.c - allocates 1 GiB and touches every page of it, once
 * per process, on its first run() (as a library reserving a workspace
 * does), and keeps it.
 */
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

void iohw__rude_act(void);

#define GIB ((size_t)1 << 30)

void iohw__rude_act(void)
{
    static volatile unsigned char *arena;
    if (arena != NULL)
        return;
    void *m = mmap(NULL, GIB, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return;
    arena = m;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < GIB; i += page)
        arena[i] = (unsigned char)i;
}
