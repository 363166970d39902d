# Tests of the fuzzy workload (issue 6). Included from tests/CMakeLists.txt.
# Unit (test_fuzzy): the study's membership table (Table 5.1) and merge vectors
# (Tables 5.3 and 5.4), Iris's r in both forms, the solver, FM iteration, dealing,
# linkage against the study's Algorithm 8, the reader and its errors.
# Command runs (label mpi): the reference vectors and the group counts of the
# bundled sets (fuzzy_vectors), the same prototypes on 1-4 ranks in both modes
# (fuzzy_ranks), bad input (fuzzy_bad_input), outputs and the plot
# (fuzzy_outputs). Slurm: jobs/fuzzy.sbatch end to end (slurm_fuzzy_e2e).
add_executable(test_fuzzy ${CMAKE_CURRENT_SOURCE_DIR}/test_fuzzy.c)
target_link_libraries(test_fuzzy PRIVATE mutirao_lib)
target_compile_definitions(test_fuzzy PRIVATE MU_TEST_FUZZY_INPUTS="${CMAKE_SOURCE_DIR}/inputs/fuzzy")
add_test(NAME unit_fuzzy COMMAND test_fuzzy)
set_tests_properties(unit_fuzzy PROPERTIES LABELS unit TIMEOUT 300)

# Exact-mode checkpoints with real signals (fuzzy_checkpoint) and the ring of
# ranks against the replicated runs on 1-4 ranks (fuzzy_ring).
foreach(script fuzzy_vectors fuzzy_ranks fuzzy_bad_input fuzzy_outputs fuzzy_checkpoint fuzzy_ring)
  add_test(NAME mpi_${script} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/${script}.sh)
  set_tests_properties(mpi_${script} PROPERTIES LABELS mpi TIMEOUT 900 ENVIRONMENT "${MPI_TEST_ENV}")
endforeach()

add_test(NAME slurm_fuzzy_e2e
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm/e2e_fuzzy.sh $<TARGET_FILE:mutirao> ${PROJECT_SOURCE_DIR}
                 ${MPIEXEC_EXECUTABLE})
set_tests_properties(slurm_fuzzy_e2e PROPERTIES LABELS slurm RESOURCE_LOCK slurm TIMEOUT 400
                                                SKIP_RETURN_CODE 77 ENVIRONMENT "${MPI_TEST_ENV}")

# GPU (label gpu; exit 77 = skipped without a device or CUDA): the kernel
# against the CPU reference start by start, bitwise (test_gpu_fuzzy), and the
# command on the GPU against the CPU on the bundled sets and 10000 blobs, both
# modes, on 1 and 2 ranks (fuzzy_gpu.sh).
add_executable(test_gpu_fuzzy ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_fuzzy.c)
target_link_libraries(test_gpu_fuzzy PRIVATE mutirao_lib)
add_test(NAME gpu_fuzzy COMMAND test_gpu_fuzzy)
set_tests_properties(gpu_fuzzy PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900)
# The fast form (--arith=fast): layout independence bitwise, the bitwise
# form within 1e-4/r (test_gpu_fuzzy_fast).
add_executable(test_gpu_fuzzy_fast ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_fuzzy_fast.c)
target_link_libraries(test_gpu_fuzzy_fast PRIVATE mutirao_lib)
add_test(NAME gpu_fuzzy_fast COMMAND test_gpu_fuzzy_fast)
set_tests_properties(gpu_fuzzy_fast PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)
add_test(NAME gpu_fuzzy_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzzy_gpu.sh)
set_tests_properties(gpu_fuzzy_cli PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900
                     ENVIRONMENT "${MPI_TEST_ENV}")
