# Installs the built skss into a staging prefix, then configures, builds and
# runs examples/cuda against it, as a user would (cmake -P, from
# examples/CMakeLists.txt: -DBUILD=the build tree -DSRC=examples/cuda
# -DWORK=a scratch folder -DGENERATOR -DCUDA_COMPILER -DARCHS=comma-separated).
file(REMOVE_RECURSE "${WORK}")
string(REPLACE "," ";" ARCHS "${ARCHS}")
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
endfunction()
run("install" "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${WORK}/prefix")
run("configure" "${CMAKE_COMMAND}" -S "${SRC}" -B "${WORK}/build" -G "${GENERATOR}"
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${WORK}/prefix"
    "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}" "-DCMAKE_CUDA_ARCHITECTURES=${ARCHS}")
run("build" "${CMAKE_COMMAND}" --build "${WORK}/build")
foreach(example lcs minplus)
  run("skss_example_${example}" "${WORK}/build/skss_example_${example}")
endforeach()
