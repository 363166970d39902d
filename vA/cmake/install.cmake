# `cmake --install`: the binary, libmutirao (static and shared), the public
# headers (include/mutirao), mutirao.pc for pkg-config and a package
# configuration for find_package(mutirao) with the target mutirao::mutirao.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS mutirao RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS mutirao_lib mutirao_shared
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/mutirao DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The shared library carries its own dependencies; a program needs MPI only.
# The prefix is found from the .pc file's place, so that any --prefix holds.
file(RELATIVE_PATH MUTIRAO_PC_UP "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(${CMAKE_SOURCE_DIR}/cmake/mutirao.pc.in ${CMAKE_BINARY_DIR}/mutirao.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/mutirao.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/mutiraoConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/mutiraoConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mutirao
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/mutiraoConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/mutiraoConfig.cmake ${CMAKE_BINARY_DIR}/mutiraoConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mutirao)
