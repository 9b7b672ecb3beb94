/*
 * backends/rude/flood.c - writes 2 MiB on stdout and 2 MiB on stderr on
 * every run() (as a library left with its debug logging on).
 */
#include <stdio.h>
#include <string.h>

void iohw__rude_act(void);

static void flood(FILE *f, const char *name)
{
    char line[128];
    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 1] = '\0';
    fprintf(f, "rude_flood: debug output on %s\n", name);
    for (int i = 0; i < (2 << 20) / (int)sizeof line; i++)
        fprintf(f, "%.*s\n", (int)sizeof line - 2, line);
    fflush(f);
}

void iohw__rude_act(void)
{
    flood(stdout, "stdout");
    flood(stderr, "stderr");
}
