/*
 * cli/suggest.c - "did you mean": the known name nearest to a mistyped one
 * (Levenshtein distance), and the unknown-option message every subcommand
 * prints, whose candidates are the options its help text lists.
 */
#include "cli/cli.h"

#include <string.h>

#define WORD_MAX 64

/* The edit distance of a and b (insertions, deletions, substitutions);
 * words longer than WORD_MAX count as far apart. */
static int distance(const char *a, size_t na, const char *b, size_t nb)
{
    int row[WORD_MAX + 1];
    if (na > WORD_MAX || nb > WORD_MAX)
        return 1 << 20;
    for (size_t j = 0; j <= nb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

/* Close enough to be a typo: at most a third of the word, and at most 3. */
static int near_enough(int d, size_t len)
{
    int limit = (int)len / 3;
    return d <= (limit < 1 ? 1 : limit > 3 ? 3 : limit);
}

const char *iohw_cli_nearest(const char *word, const char *const *names, int n)
{
    const char *best = NULL;
    int best_d = 1 << 20;
    size_t len = strlen(word);
    for (int i = 0; i < n; i++) {
        int d = distance(word, len, names[i], strlen(names[i]));
        if (d > 0 && d < best_d)
            best = names[i], best_d = d;
    }
    return best != NULL && near_enough(best_d, len) ? best : NULL;
}

/* The option spelled at text ("--name" up to a space, '=' or ','), into
 * buf; its length. */
static size_t option_at(const char *text, char *buf, size_t n)
{
    size_t len = strcspn(text, " =,[\n");
    if (len >= n)
        len = n - 1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    return len;
}

/* The long option nearest to arg among those that begin a line of help
 * ("  --name ..." or "  -x, --name ..."), into out (empty when none). */
static void nearest_option(const char *arg, const char *help, char *out, size_t n)
{
    char names[128][WORD_MAX + 1];
    const char *list[128];
    int count = 0;
    size_t arg_len = strcspn(arg, "=");
    char word[WORD_MAX + 1];
    option_at(arg, word, arg_len + 1 < sizeof word ? arg_len + 1 : sizeof word);
    for (const char *line = help; line != NULL && count < 128;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *p = line + strspn(line, " ");
        if (p[0] == '-' && p[1] != '-' && p[1] != '\0' && p[2] == ',')
            p += 3 + strspn(p + 3, " ");
        if (p == line || strncmp(p, "--", 2) != 0)
            continue;
        option_at(p, names[count], sizeof names[count]);
        list[count] = names[count];
        count++;
    }
    const char *best = iohw_cli_nearest(word, list, count);
    snprintf(out, n, "%s", best != NULL ? best : "");
}

int iohw_cli_unknown_option(const char *cmd, const char *arg, const char *help)
{
    char best[WORD_MAX + 1];
    nearest_option(arg, help, best, sizeof best);
    if (best[0] != '\0')
        return iohw_cli_usage(cmd, "unknown option '%s'; did you mean '%s'?", arg, best);
    return iohw_cli_usage(cmd, "unknown option '%s'", arg);
}
