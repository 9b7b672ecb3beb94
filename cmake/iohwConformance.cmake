# iohwConformance.cmake - iohw_add_conformance_test(), shipped in the iohw
# CMake package (find_package(iohw) includes it).
#
#   iohw_add_conformance_test(NAME mine BACKEND <target or path>
#                             PROFILE smoke|ci|full [SHARDS n] [FOR_BACKEND]
#                             [BASELINE file] [ADAPT_LAYOUT] [ARGS ...])
#
# registers ctest tests:
#   <NAME>.gen               writes the profile's suite once (iohw gen); a
#                            fixture the shards require, so ctest runs it
#                            first even under -R or -L
#   <NAME>.shard-<i>-of-<n>  iohw run --shard i/n on the backend, one test
#                            per shard, so ctest -j runs them in parallel
#                            and a red ctest names the failing shard; a
#                            shard runs with --allow-empty, since a shard of
#                            a narrow backend may hold no case it claims
#   <NAME>.all               after the shards (a fixture cleanup, so it runs
#                            whenever a shard does): 'iohw report merge
#                            --check' of their JSON reports into all.json,
#                            red when the whole run compared no case with
#                            the oracle (or a case failed)
# Each shard writes JUnit XML and a JSON report to
#   <build>/iohw-reports/<NAME>/shard-<i>-of-<n>.{junit.xml,json}
# (attached to the test for CDash; 'iohw report merge' joins the JSON).
# BACKEND is a MODULE library target of the project or the path of a shared
# object (relative paths are taken from the current binary directory).
# FOR_BACKEND writes the suite with 'iohw gen --for-backend': the profile's
# factor space cut to what the backend claims, so a narrow backend is
# tested on cases it runs instead of skipping most of the profile.
# BASELINE (relative to the current source directory) waives known
# failures; ADAPT_LAYOUT passes --adapt-layout; ARGS go to every 'iohw run'
# as they are (e.g. --jobs 2, --subnormals flush:bf16, --allow-empty).
# Every test has the labels "iohw" and "iohw-<profile>".

function(iohw_add_conformance_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "ADAPT_LAYOUT;FOR_BACKEND"
                        "NAME;BACKEND;PROFILE;SHARDS;BASELINE" "ARGS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "iohw_add_conformance_test: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  foreach(required NAME BACKEND PROFILE)
    if(NOT arg_${required})
      message(FATAL_ERROR "iohw_add_conformance_test: ${required} is required")
    endif()
  endforeach()
  if(NOT arg_PROFILE MATCHES "^[a-z0-9_]+$")
    message(FATAL_ERROR "iohw_add_conformance_test(${arg_NAME}): PROFILE '${arg_PROFILE}' is not a profile name (smoke, ci or full)")
  endif()
  if(NOT DEFINED arg_SHARDS)
    set(arg_SHARDS 1)
  endif()
  if(NOT arg_SHARDS MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "iohw_add_conformance_test(${arg_NAME}): SHARDS '${arg_SHARDS}' is not a positive integer")
  endif()

  if(TARGET ${arg_BACKEND})
    set(backend "$<TARGET_FILE:${arg_BACKEND}>")
  else()
    get_filename_component(backend "${arg_BACKEND}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  set(run_options ${arg_ARGS})
  if(arg_ADAPT_LAYOUT)
    list(APPEND run_options --adapt-layout)
  endif()
  if(arg_BASELINE)
    get_filename_component(baseline "${arg_BASELINE}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND run_options --baseline "${baseline}")
  endif()

  set(name ${arg_NAME})
  set(suite "${CMAKE_CURRENT_BINARY_DIR}/iohw-suites/${name}")
  set(reports "${CMAKE_BINARY_DIR}/iohw-reports/${name}")
  set(labels "iohw;iohw-${arg_PROFILE}")
  file(MAKE_DIRECTORY "${reports}")

  set(gen_options)
  if(arg_FOR_BACKEND)
    set(gen_options --for-backend "${backend}")
  endif()
  add_test(NAME ${name}.gen
           COMMAND iohw::iohw gen --profile ${arg_PROFILE} ${gen_options} -o "${suite}")
  set_tests_properties(${name}.gen PROPERTIES
    FIXTURES_SETUP ${name}.suite LABELS "${labels}")

  set(shard_reports)
  foreach(i RANGE 1 ${arg_SHARDS})
    set(shard shard-${i}-of-${arg_SHARDS})
    add_test(NAME ${name}.${shard}
             COMMAND iohw::iohw run --backend "${backend}" "${suite}"
                     --shard ${i}/${arg_SHARDS} --quiet --allow-empty
                     --junit "${reports}/${shard}.junit.xml"
                     --json "${reports}/${shard}.json" ${run_options}
             WORKING_DIRECTORY "${reports}")
    set_tests_properties(${name}.${shard} PROPERTIES
      FIXTURES_REQUIRED ${name}.suite LABELS "${labels}"
      ATTACHED_FILES_ON_FAIL "${reports}/${shard}.junit.xml")
    list(APPEND shard_reports "${reports}/${shard}.json")
  endforeach()

  # The whole run must compare something (unless ARGS allow an empty one).
  set(check --check)
  if("--allow-empty" IN_LIST arg_ARGS)
    list(APPEND check --allow-empty)
  endif()
  add_test(NAME ${name}.all
           COMMAND iohw::iohw report merge ${shard_reports} -o "${reports}/all.json" ${check})
  set_tests_properties(${name}.all PROPERTIES
    FIXTURES_CLEANUP ${name}.suite LABELS "${labels}")
endfunction()
