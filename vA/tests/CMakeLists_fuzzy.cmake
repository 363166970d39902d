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
mutirao_scripts(900 fuzzy_vectors fuzzy_ranks fuzzy_bad_input fuzzy_outputs fuzzy_checkpoint fuzzy_ring)

mutirao_slurm_e2e(fuzzy)

# GPU (label gpu; exit 77 = skipped without a device or CUDA): the kernel
# against the CPU reference start by start, bitwise (test_gpu_fuzzy), and the
# command on the GPU against the CPU on the bundled sets and 10000 blobs, both
# modes, on 1 and 2 ranks (fuzzy_gpu.sh).
mutirao_gpu_unit(gpu_fuzzy test_gpu_fuzzy 900)
# The fast form (--arith=fast): layout independence bitwise, the bitwise
# form within 1e-4/r (test_gpu_fuzzy_fast).
mutirao_gpu_unit(gpu_fuzzy_fast test_gpu_fuzzy_fast 600)
mutirao_gpu_script(gpu_fuzzy_cli fuzzy_gpu 900)
