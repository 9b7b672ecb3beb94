/* tests/fuzz/fuzz_layout.c - layout strings (oracle/layout.h): the first
 * byte picks the rank, the rest is "DATA WEIGHT".  Each is checked; when
 * both are valid, a small problem in those layouts maps every tensor, and
 * going to the canonical order and back is the identity. */
#include "fuzz.h"

#include "oracle/layout.h"
#include "oracle/problem.h"

static void round_trip(const iohw_layout_map *m)
{
    double *a = malloc((size_t)m->count * sizeof *a);
    double *b = malloc((size_t)m->count * sizeof *b);
    double *c = malloc((size_t)m->count * sizeof *c);
    FUZZ_ASSERT(a != NULL && b != NULL && c != NULL);
    for (int64_t i = 0; i < m->count; i++)
        a[i] = (double)i;
    iohw_layout_to_canonical(m, sizeof(double), a, b);
    iohw_layout_from_canonical(m, sizeof(double), b, c);
    FUZZ_ASSERT(memcmp(a, c, (size_t)m->count * sizeof *a) == 0);
    free(a), free(b), free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int rank = data[0] % 3 + 1;
    char *text = fuzz_text(data + 1, size - 1);
    char *space = strchr(text, ' ');
    const char *wl = space != NULL ? space + 1 : "";
    if (space != NULL)
        *space = '\0';
    int dok = iohw_layout_check_data(text, rank, NULL) == 0;
    int wok = iohw_layout_check_weight(wl, rank, NULL) == 0;
    if (dok && wok && strlen(text) < 16 && strlen(wl) < 16) {
        iohw_problem p;
        iohw_problem_init(&p);
        p.rank = (uint32_t)rank;
        p.in_channels = p.out_channels = 4;
        p.groups = iohw_layout_has_groups(wl) ? 2 : 1;
        for (int a = 0; a < rank; a++)
            p.in_size[a] = 3 + a, p.kernel[a] = 2;
        memcpy(p.data_layout, text, strlen(text) + 1);
        memcpy(p.weight_layout, wl, strlen(wl) + 1);
        iohw_layout_map m;
        if (iohw_problem_finish(&p, NULL) == 0) {
            FUZZ_ASSERT(iohw_layout_data_map(&p, 0, &m, NULL) == 0);
            round_trip(&m);
            FUZZ_ASSERT(iohw_layout_data_map(&p, 1, &m, NULL) == 0);
            round_trip(&m);
            FUZZ_ASSERT(iohw_layout_weight_map(&p, &m, NULL) == 0);
            round_trip(&m);
        }
    }
    free(text);
    return 0;
}
