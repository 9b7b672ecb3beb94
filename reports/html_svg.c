/*
 * reports/html_svg.c - the inline SVG pictures of the HTML report: a heat
 * map of where in the output a failing case's mismatches sit, a histogram
 * of the run's worst error ratios, and the small outcome bars of the
 * coverage tables.
 *
 * The heat map uses the result's coarse error map (results/result.h
 * errmap) when the harness filled it in, else bins the first mismatching
 * points; either way over the output's (h, w) plane, summed over n, c, d.
 */
#include "reports/reports_internal.h"

#include <math.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/problem.h"

#define GRID IOHW_RESULT_ERRMAP

static const char *const outcome_color[IOHW_OUTCOME_COUNT] = {
    "#2e7d32", "#c62828", "#9e9e9e", "#f9a825"};

/* --- heat map ------------------------------------------------------------ */

/* Coordinates and extents a heat map trusts: no tensor is larger
 * (oracle/problem.h), and within it every product below stays in int64_t. */
#define EXTENT_MAX IOHW_MAX_ELEMENTS

/* Output height and width of a result's problem (rank 1: height 1), each
 * in [1, EXTENT_MAX]; from the points when the descriptor does not parse
 * (points outside [0, EXTENT_MAX) are ignored). */
static void out_plane(const iohw_result *r, int64_t *oh, int64_t *ow)
{
    iohw_desc d;
    *oh = 1, *ow = 1;
    if (iohw_desc_parse(r->descriptor, &d, NULL) == 0) {
        int rank = (int)d.p.rank;
        *ow = d.p.out_size[rank - 1];
        *oh = rank >= 2 ? d.p.out_size[rank - 2] : 1;
    } else {
        for (int k = 0; k < r->npoints && k < IOHW_RESULT_POINTS; k++) {
            int64_t h = r->points[k].coord[3], w = r->points[k].coord[4];
            if (h < 0 || h >= EXTENT_MAX || w < 0 || w >= EXTENT_MAX)
                continue;
            if (h + 1 > *oh)
                *oh = h + 1;
            if (w + 1 > *ow)
                *ow = w + 1;
        }
    }
    *oh = *oh < 1 ? 1 : *oh > EXTENT_MAX ? EXTENT_MAX : *oh;
    *ow = *ow < 1 ? 1 : *ow > EXTENT_MAX ? EXTENT_MAX : *ow;
}

/* Colour of a cell holding n of at most max mismatches (white to red). */
static void cell_color(int64_t n, int64_t max, char *buf, size_t len)
{
    if (n <= 0) {
        snprintf(buf, len, "#f4f6f8");
        return;
    }
    double t = max > 1 ? log1p((double)n) / log1p((double)max) : 1.0;
    int g = (int)(220 - 190 * t), b = (int)(200 - 170 * t);
    snprintf(buf, len, "rgb(240,%d,%d)", g, b);
}

void iohw__svg_heatmap(FILE *f, const iohw_result *r)
{
    int64_t oh, ow, cells[GRID][GRID];
    out_plane(r, &oh, &ow);
    int rows = oh < GRID ? (int)oh : GRID, cols = ow < GRID ? (int)ow : GRID;
    int from_map = iohw__has_errmap(r);
    memset(cells, 0, sizeof cells);

    /* Bin the mismatches into rows x cols cells. */
    if (from_map) {
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++) {
                int bi = oh <= GRID ? (int)(i * GRID / oh) : i;
                int bj = ow <= GRID ? (int)(j * GRID / ow) : j;
                cells[i][j] = r->errmap[bi * GRID + bj];
            }
    } else {
        for (int k = 0; k < r->npoints && k < IOHW_RESULT_POINTS; k++) {
            int64_t h = r->points[k].coord[3], w = r->points[k].coord[4];
            if (h < 0 || h >= oh || w < 0 || w >= ow)
                continue;
            /* h < oh <= 2^31 and rows <= GRID: no overflow, bin < rows. */
            cells[h * rows / oh][w * cols / ow]++;
        }
    }
    int64_t max = 0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            if (cells[i][j] > max)
                max = cells[i][j];

    /* Draw: cells, axis names, a caption. */
    int span = rows > cols ? rows : cols;
    int cs = 192 / span < 10 ? 10 : 192 / span > 28 ? 28 : 192 / span;
    int left = 24, top = 6;
    int width = left + cols * cs + 8, height = top + rows * cs + 34;
    fprintf(f, "<svg class=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" "
               "width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"where the "
               "mismatches are\">\n", width < 180 ? 180 : width, height);
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            char color[32];
            cell_color(cells[i][j], max, color, sizeof color);
            /* Cell i holds the h with h * rows / oh == i. */
            int64_t h0 = (i * oh + rows - 1) / rows;
            int64_t h1 = ((i + 1) * oh + rows - 1) / rows - 1;
            int64_t w0 = (j * ow + cols - 1) / cols;
            int64_t w1 = ((j + 1) * ow + cols - 1) / cols - 1;
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                       "fill=\"%s\" stroke=\"#fff\"><title>h %lld..%lld, w "
                       "%lld..%lld: %lld%s</title></rect>\n",
                    left + j * cs, top + i * cs, cs, cs, color, (long long)h0,
                    (long long)h1, (long long)w0, (long long)w1, (long long)cells[i][j],
                    from_map && cells[i][j] >= 255 ? "+" : "");
        }
    }
    fprintf(f, "<text x=\"4\" y=\"%d\">h</text>\n", top + rows * cs / 2 + 4);
    fprintf(f, "<text x=\"%d\" y=\"%d\">w (0..%lld)</text>\n", left,
            top + rows * cs + 13, (long long)(ow - 1));
    if (from_map)
        fprintf(f, "<text x=\"%d\" y=\"%d\">all mismatches, binned</text>\n", left,
                top + rows * cs + 27);
    else
        fprintf(f, "<text x=\"%d\" y=\"%d\">first %d of %lld mismatches</text>\n",
                left, top + rows * cs + 27, r->npoints, (long long)r->mismatches);
    fputs("</svg>\n", f);
}

/* --- histogram of worst ratios ------------------------------------------- */

#define DECADE_LO (-3)
#define DECADE_HI 8
#define NBINS (DECADE_HI - DECADE_LO + 4)  /* 0, below, decades, above, inf */

static int ratio_bin(double v)
{
    if (isnan(v) || isinf(v))
        return NBINS - 1;
    if (v <= 0)
        return 0;
    double e = floor(log10(v));
    if (e < DECADE_LO)
        return 1;
    if (e >= DECADE_HI)
        return NBINS - 2;
    return 2 + (int)(e - DECADE_LO);
}

static void bin_label(int b, char *buf, size_t n)
{
    if (b == 0)
        snprintf(buf, n, "0");
    else if (b == 1)
        snprintf(buf, n, "<1e%d", DECADE_LO);
    else if (b == NBINS - 2)
        snprintf(buf, n, ">=1e%d", DECADE_HI);
    else if (b == NBINS - 1)
        snprintf(buf, n, "inf");
    else
        snprintf(buf, n, "1e%d", DECADE_LO + b - 2);
}

void iohw__svg_histogram(FILE *f, const iohw_run_results *r)
{
    int64_t bins[NBINS][IOHW_OUTCOME_COUNT];
    int64_t max = 0, total = 0;
    memset(bins, 0, sizeof bins);
    for (int64_t i = 0; i < r->count; i++) {
        const iohw_result *c = &r->items[i];
        if (c->elements <= 0)
            continue;
        bins[ratio_bin(c->worst_ratio)][iohw_outcome_of(c->status)]++;
        total++;
    }
    for (int b = 0; b < NBINS; b++) {
        int64_t s = 0;
        for (int o = 0; o < (int)IOHW_OUTCOME_COUNT; o++)
            s += bins[b][o];
        if (s > max)
            max = s;
    }
    int bw = 40, ph = 140, left = 40, top = 10;
    fprintf(f, "<svg id=\"ratio-histogram\" xmlns=\"http://www.w3.org/2000/svg\" "
               "width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"histogram of "
               "worst error ratios\">\n", left + NBINS * bw + 10, top + ph + 44);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#8a949c\"/>\n",
            left, top + ph, left + NBINS * bw, top + ph);
    fprintf(f, "<text x=\"0\" y=\"%d\">%lld</text><text x=\"0\" y=\"%d\">0</text>\n",
            top + 10, (long long)max, top + ph);
    for (int b = 0; b < NBINS; b++) {
        char label[32];
        int64_t below = 0;
        bin_label(b, label, sizeof label);
        for (int o = 0; o < (int)IOHW_OUTCOME_COUNT; o++) {
            int64_t n = bins[b][o];
            if (n == 0)
                continue;
            int y0 = (int)(ph * (double)below / (double)max);
            int y1 = (int)(ph * (double)(below + n) / (double)max);
            if (y1 - y0 < 1)
                y1 = y0 + 1;
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                       "fill=\"%s\"><title>", left + b * bw + 4, top + ph - y1,
                    bw - 8, y1 - y0, outcome_color[o]);
            iohw__xml_text(f, label, 0);
            fprintf(f, ": %lld %s</title></rect>\n", (long long)n,
                    iohw_outcome_name((iohw_outcome)o));
            below += n;
        }
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
                left + b * bw + bw / 2, top + ph + 14);
        iohw__xml_text(f, label, 0);
        fputs("</text>\n", f);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\">worst |got - expected| / (u * err_bound) "
               "per case (%lld cases compared)</text>\n</svg>\n",
            left, top + ph + 34, (long long)total);
}

/* --- outcome bars -------------------------------------------------------- */

void iohw__svg_bar(FILE *f, const int64_t count[IOHW_OUTCOME_COUNT])
{
    int64_t total = 0;
    for (int o = 0; o < (int)IOHW_OUTCOME_COUNT; o++)
        total += count[o];
    int width = 80, x = 0;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"12\">",
            width);
    for (int o = 0; o < (int)IOHW_OUTCOME_COUNT && total > 0; o++) {
        if (count[o] == 0)
            continue;
        int w = (int)lround((double)width * (double)count[o] / (double)total);
        if (w < 1)
            w = 1;
        if (x + w > width)
            w = width - x;
        fprintf(f, "<rect x=\"%d\" y=\"0\" width=\"%d\" height=\"12\" fill=\"%s\"/>",
                x, w, outcome_color[o]);
        x += w;
    }
    fputs("</svg>", f);
}

const char *iohw__outcome_color(iohw_outcome o)
{
    return (int)o >= 0 && o < IOHW_OUTCOME_COUNT ? outcome_color[o] : "#000";
}
