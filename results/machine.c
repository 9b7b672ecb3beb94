/*
 * results/machine.c - the CPU's model name and ISA features (machine.h).
 * The name is /proc/cpuinfo's "model name", what lscpu and the user's tools
 * show; a hypervisor may set CPUID's brand string apart from it, and then
 * the brand is kept too.  Without a model name the brand is the name.
 * A feature counts only when the OS saves its registers (XCR0 from xgetbv):
 * AVX state for FMA, F16C and AVX2, the opmask and ZMM state for AVX-512,
 * the tile state for AMX.
 */
#include "results/machine.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define IOHW_MACHINE_X86 1
#endif

/* A feature: its name, the cpuid leaf/subleaf, register (0 EAX .. 3 EDX),
 * bit, and the XCR0 bits the OS must enable. */
typedef struct isa_feature {
    const char *name;
    unsigned leaf, sub, reg, bit;
    uint64_t xcr0;
} isa_feature;

#define XCR0_AVX 0x6u                 /* SSE and AVX state */
#define XCR0_AVX512 (0xE0u | XCR0_AVX) /* opmask, ZMM_Hi256, Hi16_ZMM */
#define XCR0_AMX 0x60000u             /* XTILECFG, XTILEDATA */

static const isa_feature FEATURES[] = {
    {"fma", 1, 0, 2, 12, XCR0_AVX},
    {"f16c", 1, 0, 2, 29, XCR0_AVX},
    {"avx2", 7, 0, 1, 5, XCR0_AVX},
    {"avx512f", 7, 0, 1, 16, XCR0_AVX512},
    {"avx512dq", 7, 0, 1, 17, XCR0_AVX512},
    {"avx512bw", 7, 0, 1, 30, XCR0_AVX512},
    {"avx512vl", 7, 0, 1, 31, XCR0_AVX512},
    {"avx512_vnni", 7, 0, 2, 11, XCR0_AVX512},
    {"avx_vnni", 7, 1, 0, 4, XCR0_AVX},
    {"avx512_bf16", 7, 1, 0, 5, XCR0_AVX512},
    {"avx512_fp16", 7, 0, 3, 23, XCR0_AVX512},
    {"amx_tile", 7, 0, 3, 24, XCR0_AMX},
    {"amx_bf16", 7, 0, 3, 22, XCR0_AMX},
};
#define NFEATURES (sizeof FEATURES / sizeof FEATURES[0])

int iohw_machine_feature_known(const char *name)
{
    for (size_t i = 0; name != NULL && i < NFEATURES; i++)
        if (strcmp(FEATURES[i].name, name) == 0)
            return 1;
    return 0;
}

const char *iohw_machine_feature_names(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NFEATURES && len < n; i++) {
        int w = snprintf(buf + len, n - len, "%s%s", i > 0 ? " " : "", FEATURES[i].name);
        len += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

int iohw_machine_has(const iohw_machine *m, const char *feature)
{
    size_t n = feature != NULL ? strlen(feature) : 0;
    if (m == NULL || n == 0)
        return 0;
    for (const char *s = m->features; (s = strstr(s, feature)) != NULL; s += n)
        if ((s == m->features || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0'))
            return 1;
    return 0;
}

const char *iohw_machine_describe(const iohw_machine *m, char *buf,
                                  size_t n)
{
    snprintf(buf, n, "%s%s%s%s; %s", m->cpu[0] != '\0' ? m->cpu : "unknown CPU",
             m->cpuid_brand[0] != '\0' ? " (CPUID: " : "", m->cpuid_brand,
             m->cpuid_brand[0] != '\0' ? ")" : "",
             m->features[0] != '\0' ? m->features : "no AVX2 or later features");
    return buf;
}

/* text up to its end or a newline, printable, with runs of blanks squeezed
 * and none at the ends, into out (n bytes). */
static void squeeze(char *out, size_t n, const char *text)
{
    size_t j = 0;
    for (size_t i = 0; text[i] != '\0' && text[i] != '\n' && j + 1 < n; i++) {
        char c = (text[i] >= 0x20 && text[i] < 0x7f) ? text[i] : ' ';
        if (c == ' ' && (j == 0 || out[j - 1] == ' '))
            continue;
        out[j++] = c;
    }
    while (j > 0 && out[j - 1] == ' ')
        j--;
    out[j] = '\0';
}

/* The value of the first "model name" line of /proc/cpuinfo's text. */
static void cpuinfo_model(char *out, size_t n, const char *cpuinfo)
{
    static const char key[] = "model name";
    out[0] = '\0';
    for (const char *l = cpuinfo; l != NULL && *l != '\0'; l = strchr(l, '\n')) {
        l += *l == '\n';
        if (strncmp(l, key, sizeof key - 1) != 0)
            continue;
        const char *v = l + sizeof key - 1 + strspn(l + sizeof key - 1, " \t");
        if (*v == ':') {
            squeeze(out, n, v + 1);
            return;
        }
    }
}

void iohw__machine_name(iohw_machine *m, const char *cpuinfo, const char *brand)
{
    char b[sizeof m->cpu];
    cpuinfo_model(m->cpu, sizeof m->cpu, cpuinfo);
    squeeze(b, sizeof b, brand != NULL ? brand : "");
    m->cpuid_brand[0] = '\0';
    if (m->cpu[0] == '\0')
        memcpy(m->cpu, b, sizeof b);
    else if (b[0] != '\0' && strcmp(b, m->cpu) != 0)
        memcpy(m->cpuid_brand, b, sizeof b);
}

/* The start of /proc/cpuinfo (its first CPU's lines) into buf. */
static const char *read_cpuinfo(char *buf, size_t n)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    size_t got = f != NULL ? fread(buf, 1, n - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    buf[got] = '\0';
    return buf;
}

#ifdef IOHW_MACHINE_X86
static uint64_t xcr0(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) /* OSXSAVE */
        return 0;
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* The 48-byte brand string of cpuid leaves 0x80000002-4 ("" when absent). */
static void brand_string(char text[49])
{
    unsigned r[12];
    text[0] = '\0';
    if (__get_cpuid_max(0x80000000u, NULL) < 0x80000004u)
        return;
    for (unsigned k = 0; k < 3; k++)
        __get_cpuid(0x80000002u + k, &r[4 * k], &r[4 * k + 1], &r[4 * k + 2],
                    &r[4 * k + 3]);
    memcpy(text, r, 48);
    text[48] = '\0';
}
#endif

void iohw_machine_detect(iohw_machine *m)
{
    char cpuinfo[8192], brand[49] = "";
    memset(m, 0, sizeof *m);
#ifdef IOHW_MACHINE_X86
    brand_string(brand);
#endif
    iohw__machine_name(m, read_cpuinfo(cpuinfo, sizeof cpuinfo), brand);
#ifdef IOHW_MACHINE_X86
    uint64_t os = xcr0();
    unsigned max = __get_cpuid_max(0, NULL);
    size_t len = 0;
    for (size_t i = 0; i < NFEATURES; i++) {
        const isa_feature *f = &FEATURES[i];
        unsigned r[4] = {0, 0, 0, 0};
        if (f->leaf > max ||
            !__get_cpuid_count(f->leaf, f->sub, &r[0], &r[1], &r[2], &r[3]))
            continue;
        if (!(r[f->reg] & (1u << f->bit)) || (os & f->xcr0) != f->xcr0)
            continue;
        int w = snprintf(m->features + len, sizeof m->features - len, "%s%s",
                         len > 0 ? " " : "", f->name);
        if (w > 0 && (size_t)w < sizeof m->features - len)
            len += (size_t)w;
    }
#endif
}
