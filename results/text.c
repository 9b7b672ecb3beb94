/*
 * results/text.c - the process's kept texts (results/text.h): an
 * open-addressed table of distinct strings, each allocated once and never
 * freed, guarded by a mutex for the threads of `iohw gen`.
 */
#include "results/text.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text_table {
    char **slot;       /* NULL or a kept text */
    size_t cap;        /* a power of two, or 0 */
    size_t count;
} text_table;

static text_table table;
/* The one empty text, so that equal results compare equal byte for byte. */
static const char EMPTY[] = "";
static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;

/* FNV-1a over n bytes. */
static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211u;
    }
    return h;
}

/* The slot of the text equal to s[0..n), or the empty slot it belongs in. */
static char **find(const text_table *t, const char *s, size_t n)
{
    size_t i = (size_t)hash(s, n) & (t->cap - 1);
    for (;;) {
        char *k = t->slot[i];
        if (k == NULL || (strncmp(k, s, n) == 0 && k[n] == '\0'))
            return &t->slot[i];
        i = (i + 1) & (t->cap - 1);
    }
}

/* Doubles the table; 0 or -1. */
static int grow(text_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    char **slot = calloc(cap, sizeof *slot);
    if (slot == NULL)
        return -1;
    text_table bigger = {slot, cap, t->count};
    for (size_t i = 0; i < t->cap; i++)
        if (t->slot[i] != NULL)
            *find(&bigger, t->slot[i], strlen(t->slot[i])) = t->slot[i];
    free(t->slot);
    *t = bigger;
    return 0;
}

static const char *keep_locked(const char *s, size_t n)
{
    if ((table.count + 1) * 2 > table.cap && grow(&table) != 0)
        return NULL;
    char **at = find(&table, s, n);
    if (*at != NULL)
        return *at;
    char *copy = malloc(n + 1);
    if (copy == NULL)
        return NULL;
    memcpy(copy, s, n);
    copy[n] = '\0';
    *at = copy;
    table.count++;
    return copy;
}

const char *iohw_text_keep_n(const char *s, size_t n)
{
    if (s == NULL || n == 0)
        return EMPTY;
    pthread_mutex_lock(&table_mu);
    const char *k = keep_locked(s, n);
    pthread_mutex_unlock(&table_mu);
    return k != NULL ? k : IOHW_TEXT_NO_MEMORY;
}

const char *iohw_text_keep(const char *s)
{
    return iohw_text_keep_n(s, s != NULL ? strlen(s) : 0);
}

const char *iohw_text_vfmt(const char *fmt, va_list ap)
{
    char small[512];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        va_end(again);
        return EMPTY;
    }
    if ((size_t)n < sizeof small) {
        va_end(again);
        return iohw_text_keep_n(small, (size_t)n);
    }
    char *big = malloc((size_t)n + 1);
    if (big == NULL) {
        va_end(again);
        return IOHW_TEXT_NO_MEMORY;
    }
    vsnprintf(big, (size_t)n + 1, fmt, again);
    va_end(again);
    const char *k = iohw_text_keep_n(big, (size_t)n);
    free(big);
    return k;
}

const char *iohw_text_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *k = iohw_text_vfmt(fmt, ap);
    va_end(ap);
    return k;
}

/* 1 when s is NULL or "". */
static int text_empty(const char *s)
{
    return s == NULL || s[0] == '\0';
}

const char *iohw_text_join(const char *a, const char *sep, const char *b)
{
    if (text_empty(b))
        return iohw_text_keep(a);
    if (text_empty(a))
        return iohw_text_keep(b);
    return iohw_text_fmt("%s%s%s", a, sep != NULL ? sep : "", b);
}
