# Run after each build of synclab_tests (cmake -P): writes OUT, which labels every test with its
# doctest suite. doctest's own ADD_LABELS asks the binary about each test by a --test-case filter,
# which splits names at commas and so labels no test whose name has one; suite names have none.
execute_process(COMMAND "${EXE}" --list-test-suites --no-version OUTPUT_VARIABLE suites
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} --list-test-suites failed: ${rc}")
endif()
set(text "# Written by tests/suite_labels.cmake: each test labelled with its doctest suite.\n")
string(REPLACE "\n" ";" suites "${suites}")
foreach(suite IN LISTS suites)
  if(suite STREQUAL "" OR suite MATCHES "^(\\[doctest\\]|====)")
    continue()
  endif()
  execute_process(COMMAND "${EXE}" --test-suite=${suite} --list-test-cases --no-version
                  OUTPUT_VARIABLE cases RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${EXE} --test-suite=${suite} --list-test-cases failed: ${rc}")
  endif()
  # A name is one line; bracket arguments keep its commas, quotes and semicolons as they are.
  string(REPLACE ";" "\\;" cases "${cases}")
  string(REPLACE "\n" ";" cases "${cases}")
  foreach(name IN LISTS cases)
    if(name STREQUAL "" OR name MATCHES "^(\\[doctest\\]|====)")
      continue()
    endif()
    string(APPEND text "set_tests_properties([==[${name}]==] PROPERTIES LABELS ${suite})\n")
  endforeach()
endforeach()
file(WRITE "${OUT}" "${text}")
