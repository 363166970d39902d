# Careless and hostile callers (issue 48). Included from tests/CMakeLists.txt.
# The library on 1 and 3 ranks (test_api_hostile): options and sizes that
# differ between ranks, bad CSR arrays, NULL arrays and results, empty option
# strings; the command (outputs_hostile.sh): outputs that are symlinks, FIFOs,
# devices, directories, an input or another output; empty, overflowing and
# huge option values.
add_executable(test_api_hostile ${CMAKE_CURRENT_SOURCE_DIR}/test_api_hostile.c)
target_link_libraries(test_api_hostile PRIVATE mutirao_lib)
foreach(np 1 3)
  add_test(NAME mpi_api_hostile_np${np}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MUTIRAO_MPIEXEC_PREFLAGS}
                   $<TARGET_FILE:test_api_hostile>)
  set_tests_properties(mpi_api_hostile_np${np} PROPERTIES LABELS mpi TIMEOUT 120
                       ENVIRONMENT "MUTIRAO_MPI_YIELD=1")
endforeach()

mutirao_scripts(600 outputs_hostile)
