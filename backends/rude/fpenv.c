/*
 * backends/rude/fpenv.c - leaves MXCSR with flush-to-zero,
 * denormals-are-zero and rounding upward after every run() (as a library
 * built with -ffast-math, or a hand-tuned kernel that forgets to restore,
 * does).  Elsewhere than x86: rounding upward.
 */
#include <fenv.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

void iohw__rude_act(void);

void iohw__rude_act(void)
{
#if defined(__x86_64__) || defined(__i386__)
    /* FTZ (bit 15), DAZ (bit 6), rounding upward (bits 13-14 = 10). */
    _mm_setcsr((_mm_getcsr() & ~0x6000u) | 0x8000u | 0x0040u | 0x4000u);
#else
    fesetround(FE_UPWARD);
#endif
}
