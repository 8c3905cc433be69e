# Installation: libraries, headers (skss_cuda.cuh in CUDA builds), CMake package config
# (find_package(skss), component cuda) and skss.pc.
include(CMakePackageConfigHelpers)
install(TARGETS skss_shared skss_static EXPORT skssTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/skss.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(SKSS_WITH_CUDA)
  # the device task-array API: CUDA C++, for builds whose library has its host side
  install(FILES include/skss_cuda.cuh DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
install(EXPORT skssTargets NAMESPACE skss:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/skss)
configure_package_config_file(cmake/skssConfig.cmake.in
  ${PROJECT_BINARY_DIR}/skssConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/skss)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/skssConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/skssConfig.cmake ${PROJECT_BINARY_DIR}/skssConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/skss)
set(SKSS_PC_LIBS_PRIVATE "-lpthread -lm")
if(SKSS_WITH_CUDA)
  set(SKSS_PC_LIBS_PRIVATE "${SKSS_PC_LIBS_PRIVATE} -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt -lstdc++")
endif()
configure_file(cmake/skss.pc.in ${PROJECT_BINARY_DIR}/skss.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/skss.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
