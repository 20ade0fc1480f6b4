# Counts the bad-input cases of cases.txt (expected exit code 2) and requires at least MIN.
#
#   cmake -DCASES=<cases.txt> -DMIN=<n> -P count_bad_inputs.cmake
cmake_minimum_required(VERSION 3.24)
file(READ "${CASES}" text)
# CMake lists split on ';' and treat '[' ']' specially: take them out before matching.
string(REGEX REPLACE "[][;]" "_" text "\n${text}")
string(REGEX MATCHALL "\n[a-z0-9_]+ *\\|" all "${text}")
string(REGEX MATCHALL "\n[a-z0-9_]+ *\\|[^|\n]*\\| *2 *\\|" bad "${text}")
list(LENGTH all total)
list(LENGTH bad bad)
message(STATUS "bad-input cases: ${bad} of ${total} CLI cases (at least ${MIN} required)")
if(bad LESS MIN)
  message(FATAL_ERROR "only ${bad} bad-input cases in ${CASES}; the corpus must keep at least ${MIN}")
endif()
