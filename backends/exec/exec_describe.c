/*
 * backends/exec/exec_describe.c - what a program says about itself when
 * asked `--describe` (docs/EXEC_PROTOCOL.md): lines of key=value,
 *
 *   name=onnxruntime-node          its own name
 *   version=1.17.0 (CPU EP)        its own version
 *   protocols=1 2                  the protocol versions it speaks
 *   data_layouts=NCW NCHW NCDHW    the data layouts it takes (any if absent)
 *   weight_layouts=IOW IOHW        the weight layouts it takes (any if absent)
 *   quantized=1                    it reads quantized cases (specification
 *                                  section 11) and writes integer y
 *   directions=fwd bwd_d bwd_w     the directions it computes
 *                                  (specification section 13; fwd only
 *                                  when absent): a program opts in to
 *                                  the backward ones
 *   supports=problem               protocol 3: ask it about every problem,
 *                                  not once per class (supports=class, the
 *                                  default)
 *   restart=each                   protocol 3: a fresh program for every
 *                                  case (restart=failure, the default:
 *                                  after a failed request only)
 *
 * Unknown keys and lines without '=' are ignored, so that later versions
 * can add keys.
 */
#include "backends/exec/exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oracle/problem.h"

/* value[0..len) as a new string, blanks at either end dropped, control
 * characters made spaces; NULL when memory runs out. */
static char *dup_value(const char *value, size_t len)
{
    while (len > 0 && (*value == ' ' || *value == '\t'))
        value++, len--;
    while (len > 0 && (value[len - 1] == ' ' || value[len - 1] == '\t' ||
                       value[len - 1] == '\r'))
        len--;
    char *out = malloc(len + 1);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)value[i];
        out[i] = ch < 0x20 || ch == 0x7f ? ' ' : (char)ch;
    }
    out[len] = '\0';
    return out;
}

/* Replaces *field with the value; -1 when memory runs out. */
static int set_value(char **field, const char *value, size_t len)
{
    char *v = dup_value(value, len);
    if (v == NULL)
        return -1;
    free(*field);
    *field = v;
    return 0;
}

/* 1 when word (len bytes) is among the blank-separated words of list. */
static int has_word(const char *list, const char *word, size_t len)
{
    const char *p = list;
    while (*p != '\0') {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        size_t k = strcspn(p, " \t,");
        if (k == len && k > 0 && strncmp(p, word, len) == 0)
            return 1;
        p += k;
    }
    return 0;
}

/* The directions a directions= line names (fwd, bwd_d, bwd_w and
 * benchdnn's five names, any case; unknown words ignored), as bits
 * IOHW_DIR_*. */
static unsigned parse_directions(const char *list)
{
    unsigned bits = 0;
    for (const char *w = list; *w != '\0';) {
        char word[16];
        size_t k = strcspn(w, " \t,");
        int32_t dir, bias;
        if (k > 0 && k < sizeof word) {
            memcpy(word, w, k);
            word[k] = '\0';
            if (strcasecmp(word, "fwd") == 0)
                bits |= 1u << IOHW_DIR_FWD;
            else if (iohw_direction_parse(word, &dir, &bias) == 0)
                bits |= 1u << dir;
        }
        w += k;
        while (*w == ' ' || *w == '\t' || *w == ',')
            w++;
    }
    return bits;
}

/* One key=value line into a; -1 when memory runs out. */
static int parse_line(const char *key, char *value, exec_about *a)
{
    if (strcmp(key, "name") == 0)
        return free(a->name), a->name = value, 0;
    if (strcmp(key, "version") == 0)
        return free(a->version), a->version = value, 0;
    if (strcmp(key, "data_layouts") == 0)
        return free(a->data_layouts), a->data_layouts = value, 0;
    if (strcmp(key, "weight_layouts") == 0)
        return free(a->weight_layouts), a->weight_layouts = value, 0;
    if (strcmp(key, "quantized") == 0)
        a->quantized = strcmp(value, "1") == 0;
    else if (strcmp(key, "directions") == 0)
        a->directions = parse_directions(value);
    else if (strcmp(key, "protocols") == 0) {
        a->protocol2 = has_word(value, "2", 1);
        a->protocol3 = has_word(value, "3", 1);
    } else if (strcmp(key, "supports") == 0)
        a->per_problem = strcmp(value, "problem") == 0;
    else if (strcmp(key, "restart") == 0)
        a->restart_each = strcmp(value, "each") == 0;
    free(value);
    return 0;
}

void iohw__exec_about_free(exec_about *a)
{
    free(a->name);
    free(a->version);
    free(a->data_layouts);
    free(a->weight_layouts);
    memset(a, 0, sizeof *a);
}

int iohw__exec_about_parse(const char *text, exec_about *a)
{
    memset(a, 0, sizeof *a);
    a->directions = 1u << IOHW_DIR_FWD;
    int rc = set_value(&a->name, "", 0) | set_value(&a->version, "", 0) |
             set_value(&a->data_layouts, "", 0) |
             set_value(&a->weight_layouts, "", 0);
    for (const char *line = text; rc == 0 && line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        const char *eq = memchr(line, '=', len);
        if (eq != NULL) {
            const size_t klen = (size_t)(eq - line);
            char *key = dup_value(line, klen);
            char *value = dup_value(eq + 1, len - klen - 1);
            if (key == NULL || value == NULL)
                rc = -1, free(value);
            else
                rc = parse_line(key, value, a);
            free(key);
        }
        line = end != NULL ? end + 1 : NULL;
    }
    return rc;
}

int iohw__exec_layout_listed(const char *list, const char *layout)
{
    return list[0] == '\0' || has_word(list, layout, strlen(layout));
}
