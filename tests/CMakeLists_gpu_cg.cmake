# GPU tests of the cg workload (issue 3). Included from tests/CMakeLists.txt.
# Label gpu; exit code 77 (no device, or a build without CUDA) marks them skipped.
# test_gpu_cg: kernels and whole solves against the CPU reference and a host
# emulation of the GPU's summation order, on every bundled matrix and on
# Poisson operators. cg_gpu_ranks.sh: `mutirao cg --device=gpu` on 1-4 ranks
# gives the same iterations and bitwise the same solution file.
add_executable(test_gpu_cg ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_cg.c)
target_link_libraries(test_gpu_cg PRIVATE mutirao_lib)
add_test(NAME gpu_cg COMMAND test_gpu_cg ${CMAKE_SOURCE_DIR}/inputs/cg)
set_tests_properties(gpu_cg PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900)

add_test(NAME gpu_cg_ranks COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cg_gpu_ranks.sh)
set_tests_properties(gpu_cg_ranks PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900
                     ENVIRONMENT "${MPI_TEST_ENV}")
