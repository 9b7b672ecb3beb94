/*
 * tests/support/case_folder.h - a folder holding one case file made from
 * descriptors, for tests that run cases through `iohw run`.
 */
#ifndef IOHW_TEST_CASE_FOLDER_H
#define IOHW_TEST_CASE_FOLDER_H

typedef struct iohw_test_folder {
    char dir[400];
    char file[512];            /* dir/q.h5 */
    const char *inputs[1];     /* { dir }, for iohw_run_options.inputs */
} iohw_test_folder;

/* Makes the folder dir with q.h5 holding specs[i] as case "q.<i>" (i < n)
 * and, when extra is not NULL, extra as case "float.<n>".  Fails the
 * test on an error. */
void iohw_test_folder_make(iohw_test_folder *s, const char *dir, const char *const *specs,
                           int n, const char *extra);

/* Removes the folder and its files. */
void iohw_test_folder_remove(const iohw_test_folder *s);

#endif
