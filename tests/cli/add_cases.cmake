# tilejit_add_cases(<prefix> <binary> <cases.txt> BAD <dir> GOOD <dir> SAMPLES <dir> [GPU_SPECS <dir>] GEN <dir>
#                   [PLUGINS <dir>] TESTS <out-var>)
# One CTest test, <prefix>:<name>, per case line of <cases.txt>, each running <binary>
# through run_case.cmake (the line format is described in tests/cli/cases.txt); adding a
# case is adding a line (CMake re-reads the file when it changes). The tests' names go
# to <out-var>, for the caller's properties.
set(TILEJIT_RUN_CASE ${CMAKE_CURRENT_LIST_DIR}/run_case.cmake)

function(tilejit_add_cases prefix binary cases)
  cmake_parse_arguments(ARG "" "BAD;GOOD;SAMPLES;GPU_SPECS;GEN;PLUGINS;TESTS" "" ${ARGN})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${cases})
  file(READ ${cases} text)
  string(REGEX MATCHALL "\n[a-z0-9_]+ *\\|" heads "\n${text}")
  set(tests "")
  foreach(head IN LISTS heads)
    string(REGEX REPLACE "[\n |]" "" case "${head}")
    add_test(NAME ${prefix}:${case}
      COMMAND ${CMAKE_COMMAND}
        -DTILEJIT=${binary} -DCASES=${cases} -DCASE=${case}
        -DBAD=${ARG_BAD} -DGOOD=${ARG_GOOD} -DSAMPLES=${ARG_SAMPLES} -DGPU_SPECS=${ARG_GPU_SPECS} -DGEN=${ARG_GEN} -DPLUGINS=${ARG_PLUGINS}
        -DWORK=${CMAKE_CURRENT_BINARY_DIR}/cases/${case}
        -P ${TILEJIT_RUN_CASE})
    list(APPEND tests ${prefix}:${case})
  endforeach()
  set_tests_properties(${tests} PROPERTIES LABELS "cli" SKIP_REGULAR_EXPRESSION "SKIPPED: ")
  set(${ARG_TESTS} ${tests} PARENT_SCOPE)
endfunction()
