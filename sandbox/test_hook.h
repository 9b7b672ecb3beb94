/*
 * sandbox/test_hook.h - the one way the tests make the harness fail where
 * only a corrupt file or a broken library would: named points at which a
 * process crashes (SIGSEGV) or hangs when the environment variable
 *
 *   IOHW_TEST_HOOK=ACTION:POINT:SUBJECT     ACTION crash or hang
 *
 * names that point and subject.  The points:
 *
 *   read:PATH         a guarded child (sandbox/guard.h) starts on the file
 *                     PATH: the listing of a run, `iohw show`, `iohw oracle`
 *   verifier:DATASET  the verifier starts reading a case's dataset (x, w,
 *                     y_f64, ...), as libhdf5 may die on a corrupt one
 *   verifier:compare  the verifier starts comparing
 *
 * Only test builds have them: with IOHW_TEST_HOOKS defined (the test copies
 * of the files that use this header and the iohw-hooked command,
 * tests/CMakeLists.txt) IOHW_TEST_HOOK calls iohw__test_hook
 * (tests/hooks/test_hook.c); in the library and the iohw command it is
 * nothing, so the production binary neither reads the variable nor holds
 * the code.
 */
#ifndef IOHW_TEST_HOOK_H
#define IOHW_TEST_HOOK_H

#ifdef IOHW_TEST_HOOKS
void iohw__test_hook(const char *point, const char *subject);
#define IOHW_TEST_HOOK(point, subject) iohw__test_hook((point), (subject))
#else
#define IOHW_TEST_HOOK(point, subject) ((void)(point), (void)(subject))
#endif

#endif
