# Runs `skss demo --quick` into a fresh directory (cmake -P, from
# examples/CMakeLists.txt: -DSKSS=the CLI -DDATA=data dir -DOUT=output dir)
# and fails unless it exits 0 and every output it promises is there.
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${SKSS}" demo --quick --data "${DATA}" --out "${OUT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "skss demo exited ${rc}")
endif()
foreach(name astronaut_fs.png astronaut_jjn.png astronaut_box8.png astronaut_sat.npy
             knapsack_sc_1000_solution.txt)
  if(NOT EXISTS "${OUT}/${name}")
    message(FATAL_ERROR "skss demo did not write ${OUT}/${name}")
  endif()
  file(SIZE "${OUT}/${name}" bytes)
  if(bytes EQUAL 0)
    message(FATAL_ERROR "skss demo wrote an empty ${OUT}/${name}")
  endif()
endforeach()
