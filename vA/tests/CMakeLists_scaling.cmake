# perf/scaling.py, the scaling driver of all five workloads. Included from
# tests/CMakeLists.txt (Slurm scripts: tests/slurm/, see CMakeLists_slurm.cmake).
# scaling_e2e: jobs/scaling.sbatch through the local one-node Slurm, tiny preset,
#   strong and weak on 1, 2 and 3 ranks: ctest -R slurm_scaling_e2e
# scaling_fail: failed and missing runs reported, mpiexec outside Slurm.
add_test(NAME slurm_scaling_e2e
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/slurm/e2e_scaling.sh $<TARGET_FILE:mutirao>
                 ${PROJECT_SOURCE_DIR})
# Alone on the machine (RUN_SERIAL): its efficiencies are timings, and a test
# beside it on 2 cores once made a 1-rank step slow enough for 158 %.
set_tests_properties(slurm_scaling_e2e PROPERTIES LABELS slurm RESOURCE_LOCK slurm TIMEOUT 400
                                                  SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)

add_test(NAME mpi_scaling_fail COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/scaling_fail.sh)
set_tests_properties(mpi_scaling_fail PROPERTIES LABELS mpi TIMEOUT 300 ENVIRONMENT "${MPI_TEST_ENV}")
