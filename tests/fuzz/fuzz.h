/*
 * tests/fuzz/fuzz.h - what the fuzz harnesses share.  Each fuzz_*.c defines
 * LLVMFuzzerTestOneInput for one parser of hostile input; it is linked with
 * libFuzzer by the clang build (scripts/fuzz.sh) and with replay.c, which
 * feeds it every file of a corpus, by the normal build (ctest).
 */
#ifndef IOHW_FUZZ_H
#define IOHW_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (malloc'd; it stops at a NUL). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* A property every input must keep; a broken one is a finding. */
#define FUZZ_ASSERT(cond) \
    do { if (!(cond)) abort(); } while (0)

#endif
