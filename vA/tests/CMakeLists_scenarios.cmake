# Tests of the scenarios workload (issue 4), the k-means excepted (test_kmeans.c).
# Unit (unit_scenarios): the reader's errors, the fit against known coefficients
# of long synthetic PAR series, linear algebra, non-negative generation, and the
# moments of 100000 generated years against the fitted model.
# Command runs (label mpi): orders and coefficients on the real records against an
# independent dense Yule-Walker solve (scenarios_fit), the same tree and comb on
# 1-4 ranks (scenarios_ranks), bad input (scenarios_bad_input), the forms of
# representative (scenarios_trees: same trees on 1-4 ranks, the mean kept,
# checked from the files by scenarios_mean_check.py).
# GPU (gpu_scenarios): the generation kernel against the CPU reference.
# Slurm: jobs/scenarios.sbatch end to end (slurm_scenarios_e2e).
add_executable(test_scenarios ${CMAKE_CURRENT_SOURCE_DIR}/test_scenarios.c)
target_link_libraries(test_scenarios PRIVATE mutirao_lib)
target_compile_definitions(test_scenarios
                           PRIVATE MU_TEST_SCENARIOS_INPUTS="${CMAKE_SOURCE_DIR}/inputs/scenarios")
add_test(NAME unit_scenarios COMMAND test_scenarios)
set_tests_properties(unit_scenarios PROPERTIES LABELS unit TIMEOUT 300)

mutirao_scripts(600 scenarios_fit scenarios_ranks scenarios_bad_input scenarios_main
                scenarios_checkpoint scenarios_trees)

# GPU (label gpu; 77 = skipped without a device or CUDA): the generation kernel
# against the CPU reference (test_scenarios.c built with MU_TEST_SCENARIOS_GPU),
# and the whole command on the GPU against the CPU (scenarios_gpu.sh).
add_executable(test_gpu_scenarios ${CMAKE_CURRENT_SOURCE_DIR}/test_scenarios.c)
target_link_libraries(test_gpu_scenarios PRIVATE mutirao_lib)
target_compile_definitions(test_gpu_scenarios PRIVATE MU_TEST_SCENARIOS_GPU=1
                           MU_TEST_SCENARIOS_INPUTS="${CMAKE_SOURCE_DIR}/inputs/scenarios")
add_test(NAME gpu_scenarios COMMAND test_gpu_scenarios)
set_tests_properties(gpu_scenarios PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)
mutirao_gpu_script(gpu_scenarios_cli scenarios_gpu 600)
# The forms of representative on the GPU: the CPU's trees byte for byte on 1
# and 3 ranks, the mean kept (scenarios_gpu_trees.sh).
mutirao_gpu_script(gpu_scenarios_trees scenarios_gpu_trees 600)

mutirao_slurm_e2e(scenarios)
