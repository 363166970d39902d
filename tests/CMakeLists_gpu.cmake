# GPU kernels against the CPU reference. Label gpu; exit code 77 (no device, or a
# build without CUDA) marks the test skipped.
add_executable(test_gpu_maxsub test_gpu_maxsub.c)
target_link_libraries(test_gpu_maxsub PRIVATE mutirao_lib)
add_test(NAME gpu_maxsub COMMAND test_gpu_maxsub)
set_tests_properties(gpu_maxsub PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900)
