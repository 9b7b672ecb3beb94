# cmake/IohwCoverage.cmake - line and branch coverage of a backend under the
# iohw suite (docs/BACKEND_COVERAGE.md).
#
# In the CMake project that builds your backend:
#
#   include(/path/to/iohw/cmake/IohwCoverage.cmake)
#   iohw_add_backend_coverage(TARGET mybackend)
#
# compiles and links TARGET with --coverage (GCC or Clang), unoptimised, so
# that `iohw run --backend libmybackend.so SUITE` leaves .gcda files beside
# its objects.  iohw's workers unload the backend (dlclose) before they
# exit, which writes the counters; a case that crashes or times out loses
# its worker's counters.  Then, for example:
#
#   gcovr --root SRC --filter SRC/mybackend/ --object-directory BUILD \
#         --html-details cov/index.html --cobertura cov/coverage.xml \
#         --print-summary
#
# scripts/backend-coverage.sh does all of it for the bundled backends and for
# a backend built elsewhere.
include_guard(GLOBAL)

function(iohw_add_backend_coverage)
  cmake_parse_arguments(ARG "" "TARGET" "" ${ARGN})
  if(NOT ARG_TARGET)
    message(FATAL_ERROR "iohw_add_backend_coverage: TARGET is required")
  endif()
  if(NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "iohw_add_backend_coverage: no target named '${ARG_TARGET}'")
  endif()
  if(NOT CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND
     NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "iohw_add_backend_coverage: --coverage needs GCC or Clang")
  endif()
  target_compile_options(${ARG_TARGET} PRIVATE --coverage -O0 -g)
  target_link_options(${ARG_TARGET} PRIVATE --coverage)
endfunction()
