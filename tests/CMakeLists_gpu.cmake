# GPU kernels against the CPU reference. Label gpu; exit code 77 (no device, or a
# build without CUDA) marks the test skipped.
add_executable(test_gpu_maxsub test_gpu_maxsub.c)
target_link_libraries(test_gpu_maxsub PRIVATE mutirao_lib)
add_test(NAME gpu_maxsub COMMAND test_gpu_maxsub)
set_tests_properties(gpu_maxsub PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900)
add_executable(test_gpu_maxsub_gen test_gpu_maxsub_gen.c)
target_link_libraries(test_gpu_maxsub_gen PRIVATE mutirao_lib)
add_test(NAME gpu_maxsub_gen COMMAND test_gpu_maxsub_gen)
set_tests_properties(gpu_maxsub_gen PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)
add_test(NAME gpu_maxsub_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/maxsub_gpu.sh)
set_tests_properties(gpu_maxsub_cli PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600
                     ENVIRONMENT "${MPI_TEST_ENV}")
