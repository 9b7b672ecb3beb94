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
 *
 * Unknown keys and lines without '=' are ignored, so that later versions
 * can add keys.
 */
#include "backends/exec/exec.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "oracle/problem.h"

/* Copies value[0..len) into out[n], blanks at either end dropped, control
 * characters made spaces. */
static void copy_value(const char *value, size_t len, char *out, size_t n)
{
    while (len > 0 && (*value == ' ' || *value == '\t'))
        value++, len--;
    while (len > 0 && (value[len - 1] == ' ' || value[len - 1] == '\t' ||
                       value[len - 1] == '\r'))
        len--;
    if (len >= n)
        len = n - 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)value[i];
        out[i] = ch < 0x20 || ch == 0x7f ? ' ' : (char)ch;
    }
    out[len] = '\0';
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
static unsigned parse_directions(const char *value, size_t len)
{
    char list[128];
    unsigned bits = 0;
    copy_value(value, len, list, sizeof list);
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

void iohw__exec_about_parse(const char *text, exec_about *a)
{
    memset(a, 0, sizeof *a);
    a->directions = 1u << IOHW_DIR_FWD;
    for (const char *line = text; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        const char *eq = memchr(line, '=', len);
        if (eq != NULL) {
            const size_t klen = (size_t)(eq - line), vlen = len - klen - 1;
            char key[32];
            copy_value(line, klen, key, sizeof key);
            if (strcmp(key, "name") == 0)
                copy_value(eq + 1, vlen, a->name, sizeof a->name);
            else if (strcmp(key, "version") == 0)
                copy_value(eq + 1, vlen, a->version, sizeof a->version);
            else if (strcmp(key, "data_layouts") == 0)
                copy_value(eq + 1, vlen, a->data_layouts, sizeof a->data_layouts);
            else if (strcmp(key, "weight_layouts") == 0)
                copy_value(eq + 1, vlen, a->weight_layouts,
                           sizeof a->weight_layouts);
            else if (strcmp(key, "quantized") == 0) {
                char v[16];
                copy_value(eq + 1, vlen, v, sizeof v);
                a->quantized = strcmp(v, "1") == 0;
            } else if (strcmp(key, "directions") == 0) {
                a->directions = parse_directions(eq + 1, vlen);
            } else if (strcmp(key, "protocols") == 0) {
                char list[64];
                copy_value(eq + 1, vlen, list, sizeof list);
                a->protocol2 = has_word(list, "2", 1);
            }
        }
        line = end != NULL ? end + 1 : NULL;
    }
}

int iohw__exec_layout_listed(const char *list, const char *layout)
{
    return list[0] == '\0' || has_word(list, layout, strlen(layout));
}
