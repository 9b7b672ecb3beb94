/*
 * tests/test_machine.c - the machine a run names (results/machine.h).
 * The features are checked against the kernel's own list (/proc/cpuinfo's
 * flags use the same names), so the test holds on any x86-64 CPU; the name
 * is /proc/cpuinfo's, and a VM whose CPUID brand differs is simulated.  The
 * reports that carry it and the baseline entries conditioned on it are
 * tested in test_reports.c.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/machine.h"

static const char *const NAMES[] = {"fma", "f16c", "avx2", "avx512f", "avx512dq",
                                    "avx512bw", "avx512vl", "avx512_vnni", "avx_vnni",
                                    "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16"};
#define NNAMES (sizeof NAMES / sizeof NAMES[0])

/* /proc/cpuinfo's first "flags" line and "model name" value, or 0. */
static int cpuinfo(char *flags, size_t nf, char *model, size_t nm)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    flags[0] = model[0] = '\0';
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        char *v = colon + 1 + strspn(colon + 1, " ");
        v[strcspn(v, "\n")] = '\0';
        if (flags[0] == '\0' && strncmp(line, "flags", 5) == 0)
            snprintf(flags, nf, " %s ", v);
        if (model[0] == '\0' && strncmp(line, "model name", 10) == 0)
            snprintf(model, nm, "%s", v);
    }
    fclose(f);
    return flags[0] != '\0';
}

Test(machine, names_exactly_the_features_the_kernel_lists)
{
    char flags[8192], model[256], word[64];
    iohw_machine m;
    iohw_machine_detect(&m);
    if (!cpuinfo(flags, sizeof flags, model, sizeof model))
        cr_skip_test("/proc/cpuinfo has no flags line");
    for (size_t i = 0; i < NNAMES; i++) {
        snprintf(word, sizeof word, " %s ", NAMES[i]);
        cr_expect_eq(iohw_machine_has(&m, NAMES[i]), strstr(flags, word) != NULL,
                     "%s: machine '%s', /proc/cpuinfo %s", NAMES[i], m.features,
                     strstr(flags, word) != NULL ? "has it" : "does not");
        cr_expect(iohw_machine_feature_known(NAMES[i]));
    }
    /* The kernel keeps the brand string's inner runs of blanks (older
     * Intel CPUs pad it: "CPU     E8400  @ 3.00GHz"); the machine's name
     * has them squeezed. */
    size_t j = 0;
    for (size_t i = 0; model[i] != '\0'; i++)
        if (model[i] != ' ' || (j > 0 && model[j - 1] != ' '))
            model[j++] = model[i];
    while (j > 0 && model[j - 1] == ' ')
        j--;
    model[j] = '\0';
    if (model[0] != '\0')
        cr_expect_str_eq(m.cpu, model);
    /* CPUID's brand, kept only when it differs (a VM's may). */
    cr_expect_str_neq(m.cpuid_brand, m.cpu);
    cr_log_info("machine: %s (CPUID: %s); %s", m.cpu, m.cpuid_brand, m.features);
}

/* A VM whose hypervisor gives CPUID another brand than /proc/cpuinfo's
 * model name: the name is the one the user's tools show, the brand kept. */
static const char VM_CPUINFO[] = "processor\t: 0\n"
                                 "vendor_id\t: AuthenticAMD\n"
                                 "cpu family\t: 26\n"
                                 "model name\t: AMD  EPYC \n"
                                 "flags\t\t: fpu avx2 avx512_bf16\n\n"
                                 "processor\t: 1\n"
                                 "model name\t: Other\n";

Test(machine, names_the_cpu_as_cpuinfo_does_and_keeps_a_differing_cpuid_brand)
{
    iohw_machine m;
    char buf[512];
    memset(&m, 0, sizeof m);
    iohw__machine_name(&m, VM_CPUINFO, "  Oxide Virtual Turin-like Processor   ");
    cr_expect_str_eq(m.cpu, "AMD EPYC");
    cr_expect_str_eq(m.cpuid_brand, "Oxide Virtual Turin-like Processor");
    snprintf(m.features, sizeof m.features, "avx2");
    cr_expect_str_eq(iohw_machine_describe(&m, buf, sizeof buf),
                     "AMD EPYC (CPUID: Oxide Virtual Turin-like Processor); avx2");
}

Test(machine, a_brand_equal_to_the_model_name_is_not_repeated)
{
    iohw_machine m;
    memset(&m, 0, sizeof m);
    iohw__machine_name(&m, VM_CPUINFO, "AMD EPYC");
    cr_expect_str_eq(m.cpu, "AMD EPYC");
    cr_expect_str_empty(m.cpuid_brand);
    iohw__machine_name(&m, VM_CPUINFO, NULL);
    cr_expect_str_eq(m.cpu, "AMD EPYC");
    cr_expect_str_empty(m.cpuid_brand);
}

Test(machine, without_a_model_name_the_cpuid_brand_is_the_name)
{
    iohw_machine m;
    memset(&m, 0, sizeof m);
    iohw__machine_name(&m, "processor\t: 0\nmodel\t\t: 17\nmodel namex\n", "Some  CPU");
    cr_expect_str_eq(m.cpu, "Some CPU");
    cr_expect_str_empty(m.cpuid_brand);
    iohw__machine_name(&m, NULL, "");
    cr_expect_str_empty(m.cpu);
    cr_expect_str_empty(m.cpuid_brand);
}

Test(machine, matches_whole_feature_names_only)
{
    iohw_machine m;
    memset(&m, 0, sizeof m);
    snprintf(m.features, sizeof m.features, "avx2 avx512f avx512_bf16");
    cr_expect(iohw_machine_has(&m, "avx512f"));
    cr_expect(iohw_machine_has(&m, "avx512_bf16"));
    cr_expect(!iohw_machine_has(&m, "avx512"));
    cr_expect(!iohw_machine_has(&m, "avx"));
    cr_expect(!iohw_machine_has(&m, "bf16"));
    cr_expect(!iohw_machine_has(&m, ""));
    cr_expect(!iohw_machine_has(&m, NULL));
    cr_expect(!iohw_machine_feature_known("avx512"));
    cr_expect(!iohw_machine_feature_known("sse2"));
    char buf[300];
    cr_expect_str_eq(iohw_machine_describe(&m, buf, sizeof buf),
                     "unknown CPU; avx2 avx512f avx512_bf16");
    m.features[0] = '\0';
    snprintf(m.cpu, sizeof m.cpu, "Some CPU");
    cr_expect_str_eq(iohw_machine_describe(&m, buf, sizeof buf),
                     "Some CPU; no AVX2 or later features");
}

/* The list baseline errors show names every feature once, in order. */
Test(machine, lists_every_feature_name_in_order)
{
    char names[512], want[512] = "";
    for (size_t i = 0; i < NNAMES; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", i > 0 ? " " : "",
                 NAMES[i]);
    cr_expect_str_eq(iohw_machine_feature_names(names, sizeof names), want);
    /* Cut to fit, never past the buffer. */
    cr_expect_str_eq(iohw_machine_feature_names(names, 8), "fma f16");
}
