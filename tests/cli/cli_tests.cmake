# CLI golden and error tests (label cli): tests/cli/run_cli_tests.py runs the
# built skss against NumPy oracles and the MD5 goldens in tests/cli/golden,
# on every backend and algorithm `skss info --json` lists. One CTest test per
# group; exit 77 (skipped) when NumPy is missing. Regenerate the goldens from
# the cpu-ref backend with:
#   python3 tests/cli/run_cli_tests.py --skss build/tools/skss/skss --data data --update
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND AND TARGET skss_cli)
  foreach(group halftone sat boxfilter knapsack compact align errors misc demo outputs)
    add_test(NAME cli_${group}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/run_cli_tests.py
              --skss $<TARGET_FILE:skss_cli> --data ${PROJECT_SOURCE_DIR}/data --group ${group})
    set_tests_properties(cli_${group} PROPERTIES LABELS cli TIMEOUT 600 SKIP_RETURN_CODE 77)
  endforeach()
endif()
