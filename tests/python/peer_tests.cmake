# Python peer tests (label peer): every tests/python/test_*.py runs under
# pytest against the freshly built libskss.so (ctypes) and skss CLI, with the
# real peers installed by scripts/deps.sh (Pillow, OpenCV, OR-Tools, NumPy).
find_package(Python3 COMPONENTS Interpreter)
file(GLOB SKSS_PY_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.py)
set(SKSS_PEER_BIN "")
set(SKSS_PEER_IO_DUMP "")
if(TARGET skss_cli)
  set(SKSS_PEER_BIN "$<TARGET_FILE:skss_cli>")
endif()
if(TARGET skss_io_dump)
  set(SKSS_PEER_IO_DUMP "$<TARGET_FILE:skss_io_dump>")
endif()
if(Python3_Interpreter_FOUND)
  foreach(py ${SKSS_PY_TESTS})
    get_filename_component(name ${py} NAME_WE)
    add_test(NAME peer_${name} COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${py})
    set_tests_properties(peer_${name} PROPERTIES LABELS peer TIMEOUT 1200
      ENVIRONMENT "SKSS_LIB=$<TARGET_FILE:skss_shared>;SKSS_BIN=${SKSS_PEER_BIN};SKSS_IO_DUMP=${SKSS_PEER_IO_DUMP};PYTHONPATH=${CMAKE_CURRENT_LIST_DIR}")
  endforeach()
endif()
