# Tests of the advect workload (issue 5). Included from tests/CMakeLists.txt.
# Unit (unit_advect): the study's Figure 3 classification and Table 1
# streams, and the segment engine (lines and dataflow orders) bitwise equal to
# an independent transcription of the corrected 1-D routine (Walcek 2000).
# Command runs (label mpi): the analytic oracles (advect_oracles), the same bits
# on 1-4 ranks and in both schedules (advect_ranks), bad decks
# (advect_bad_input), checkpoint/restart, HDF5, PNG and summary
# (advect_outputs). Slurm: jobs/advect.sbatch end to end (slurm_advect_e2e).
add_executable(test_advect ${CMAKE_CURRENT_SOURCE_DIR}/test_advect.c)
target_link_libraries(test_advect PRIVATE mutirao_lib)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/test_advect.c PROPERTIES COMPILE_OPTIONS
                                                                          "-ffp-contract=off")
add_test(NAME unit_advect COMMAND test_advect)
set_tests_properties(unit_advect PROPERTIES LABELS unit TIMEOUT 300)

# The device's chain walks (gpu/advect_walk.h) on the host, bitwise against the engine's ranges.
add_executable(test_advect_walk ${CMAKE_CURRENT_SOURCE_DIR}/test_advect_walk.c)
target_link_libraries(test_advect_walk PRIVATE mutirao_lib)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/test_advect_walk.c
                            PROPERTIES COMPILE_OPTIONS "-ffp-contract=off")
add_test(NAME unit_advect_walk COMMAND test_advect_walk)
set_tests_properties(unit_advect_walk PROPERTIES LABELS unit TIMEOUT 300)

mutirao_scripts(900 advect_oracles advect_ranks advect_bad_input advect_outputs)

mutirao_slurm_e2e(advect)

# GPU (label gpu, exit 77 without a device): CPU vs GPU, bitwise, both schedules, 1-4 ranks.
mutirao_gpu_script(gpu_advect advect_gpu 900)
