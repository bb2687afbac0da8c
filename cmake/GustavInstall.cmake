# Installs the library, its headers (public API and the header-only kernels
# they include) and a CMake package, so that find_package(Gustav) works.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS gustav EXPORT GustavTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET gustav_distributed)
  install(TARGETS gustav_distributed EXPORT GustavTargets)
  install(DIRECTORY include/gustav DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(DIRECTORY src/gustav DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
else()
  # Without MPI the distributed layer's headers would name an mpi.h the
  # consumer may not have: they stay out.
  install(DIRECTORY include/gustav DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} PATTERN "distributed.hpp" EXCLUDE)
  install(DIRECTORY src/gustav DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp"
          PATTERN "distributed" EXCLUDE)
endif()
if(TARGET gustav_tool)
  install(TARGETS gustav_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(EXPORT GustavTargets NAMESPACE Gustav:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Gustav)
configure_package_config_file(cmake/GustavConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/GustavConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Gustav)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/GustavConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/GustavConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/GustavConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Gustav)
