# Slurm end-to-end tests: jobs/*.sbatch submitted to a one-node Slurm on this
# machine, which tests/slurm/slurm_up.sh configures and starts (as root) when it
# is not up. Included from tests/CMakeLists.txt. Run alone: ctest -L slurm.
# A script exits 77 (skipped) where Slurm is not installed, or is down and the
# user is not root; MUTIRAO_REQUIRE_SLURM=1 in the environment makes that a failure.
set(MUTIRAO_SLURM_TESTS ${CMAKE_CURRENT_LIST_DIR}/slurm)

mutirao_slurm_e2e(maxsub)

# The launch check against a real srun with the wrong and the right --mpi plugin.
add_test(NAME slurm_launch_check
         COMMAND bash ${MUTIRAO_SLURM_TESTS}/launch_check.sh $<TARGET_FILE:mutirao> ${PROJECT_SOURCE_DIR})
set_tests_properties(slurm_launch_check PROPERTIES LABELS slurm RESOURCE_LOCK slurm TIMEOUT 300
                                                   SKIP_RETURN_CODE 77)

# jobs/job.sh: requeue by signal (batch shell and step), the status through
# mpiexec.mpich, jobs/gpu.sbatch's GPU headers, jobs/sweep.sbatch's array.
add_test(NAME slurm_jobs_e2e
         COMMAND bash ${MUTIRAO_SLURM_TESTS}/e2e_jobs.sh $<TARGET_FILE:mutirao> ${PROJECT_SOURCE_DIR}
                 ${MPIEXEC_EXECUTABLE})
set_tests_properties(slurm_jobs_e2e PROPERTIES LABELS slurm RESOURCE_LOCK slurm TIMEOUT 600
                     SKIP_RETURN_CODE 77 ENVIRONMENT "${MPI_TEST_ENV}")
