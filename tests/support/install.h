/*
 * tests/support/install.h - iohw as another project uses it: this build
 * tree installed into a temporary prefix, and a project configured and
 * built against that prefix.
 */
#ifndef IOHW_TEST_INSTALL_H
#define IOHW_TEST_INSTALL_H

/* Installs the build tree into <dir>/prefix (dir emptied first). */
void iohw_test_install(const char *dir);

/* Configures and builds the project in src against <dir>/prefix, in
 * <dir>/build. */
void iohw_test_build_project(const char *dir, const char *src);

#endif
