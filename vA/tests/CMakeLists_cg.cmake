# Tests of the cg workload (issue 3). Included from tests/CMakeLists.txt.
# Unit: exact sums, Matrix Market reader, Poisson generators (test_cg).
# MPI on 1-4 ranks: halo exchange, reduced exact sums, distributed SpMV
# (test_cg_mpi); command runs: same iterations and bitwise the same solution on
# 1-4 ranks, bad input, breakdown, the study's counts, checkpoint/restart.
add_executable(test_cg ${CMAKE_CURRENT_SOURCE_DIR}/test_cg.c)
target_link_libraries(test_cg PRIVATE mutirao_lib)
target_compile_definitions(test_cg PRIVATE MU_TEST_CG_INPUTS="${CMAKE_SOURCE_DIR}/inputs/cg")
add_test(NAME unit_cg COMMAND test_cg)
set_tests_properties(unit_cg PROPERTIES LABELS unit TIMEOUT 300)

add_executable(test_cg_mpi ${CMAKE_CURRENT_SOURCE_DIR}/test_cg_mpi.c)
target_link_libraries(test_cg_mpi PRIVATE mutirao_lib)
foreach(np 1 2 3 4)
  add_test(NAME mpi_cg_np${np}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MUTIRAO_MPIEXEC_PREFLAGS}
                   $<TARGET_FILE:test_cg_mpi> ${CMAKE_SOURCE_DIR}/inputs/cg)
  set_tests_properties(mpi_cg_np${np} PROPERTIES LABELS mpi TIMEOUT 120
                       ENVIRONMENT "MUTIRAO_MPI_YIELD=1")
endforeach()

mutirao_scripts(900 cg_ranks cg_bad_input cg_thesis cg_checkpoint)
