/*
 * results/machine.h - the machine a run happened on: the CPU's model name
 * and the instruction-set features that change what a library computes
 * (oneDNN and libtorch pick their kernels by them), so that every report
 * can be traced to its machine and a baseline entry can be conditioned on
 * a feature (reports/baseline.c).
 */
#ifndef IOHW_MACHINE_H
#define IOHW_MACHINE_H

#include <stddef.h>

typedef struct iohw_machine {
    char cpu[128];       /* model name ("" when unknown): /proc/cpuinfo's,
                          * else CPUID's brand string */
    /* The features present and enabled by the OS, space-separated, in
     * /proc/cpuinfo's spelling and this order: fma f16c avx2 avx512f
     * avx512dq avx512bw avx512vl avx512_vnni avx_vnni avx512_bf16
     * avx512_fp16 amx_tile amx_bf16 */
    char features[160];
    /* CPUID's brand string when it differs from cpu (a hypervisor may set
     * the two apart), "" otherwise. */
    char cpuid_brand[128];
} iohw_machine;

/* Fills m from /proc/cpuinfo and cpuid (and xgetbv for what the OS
 * enables). */
void iohw_machine_detect(iohw_machine *m);

/* Sets m->cpu and m->cpuid_brand from the text of /proc/cpuinfo (its first
 * "model name") and CPUID's brand string, either NULL or "" when unknown;
 * both squeezed to single blanks. */
void iohw__machine_name(iohw_machine *m, const char *cpuinfo, const char *brand);

/* 1 when the feature (a word of m->features, e.g. "avx512_bf16") is
 * present, 0 otherwise. */
int iohw_machine_has(const iohw_machine *m, const char *feature);

/* "CPU MODEL; FEATURE FEATURE..." for a report's header, with
 * " (CPUID: BRAND)" after the model when they differ ("unknown CPU",
 * "no AVX2 or later features" for what is missing); returns buf. */
const char *iohw_machine_describe(const iohw_machine *m, char *buf,
                                  size_t n);

/* 1 when name is one of the feature names iohw_machine_detect reports. */
int iohw_machine_feature_known(const char *name);
/* Every feature name, space-separated, in the order of m->features, into
 * buf (n bytes, cut to fit); returns buf. */
const char *iohw_machine_feature_names(char *buf, size_t n);

#endif
