# Counts the bad-input cases of cases.txt (expected exit code 2) and requires at least MIN.
#
#   cmake -DCASES=<cases.txt> -DMIN=<n> -P count_bad_inputs.cmake
cmake_minimum_required(VERSION 3.24)
file(STRINGS "${CASES}" lines REGEX "^[a-z0-9_]+ *\\|")
set(bad 0)
set(total 0)
foreach(line IN LISTS lines)
  math(EXPR total "${total} + 1")
  if(line MATCHES "^[a-z0-9_]+ *\\|[^|]*\\| *2 *\\|")
    math(EXPR bad "${bad} + 1")
  endif()
endforeach()
message(STATUS "bad-input cases: ${bad} of ${total} CLI cases (at least ${MIN} required)")
if(bad LESS MIN)
  message(FATAL_ERROR "only ${bad} bad-input cases in ${CASES}; the corpus must keep at least ${MIN}")
endif()
