# Tests of the scenario aggregation's k-means (issue 4). Included from tests/CMakeLists.txt.
# unit_kmeans: whitening, fixed points, probabilities, K > M, duplicates.
# kmeans_r: Hartigan-Wong equal to R's kmeans() on 15 data sets (skipped, 77, without Rscript).
# gpu_kmeans: the device's distance and assignment kernels and whole aggregations
# bit for bit equal to the CPU (label gpu, 77 without a device).
add_executable(test_kmeans ${CMAKE_CURRENT_SOURCE_DIR}/test_kmeans.c)
target_link_libraries(test_kmeans PRIVATE mutirao_lib)
add_test(NAME unit_kmeans COMMAND test_kmeans)
set_tests_properties(unit_kmeans PROPERTIES LABELS unit TIMEOUT 300)

add_test(NAME kmeans_r COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/kmeans_r.sh $<TARGET_FILE:test_kmeans>)
set_tests_properties(kmeans_r PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 300)

add_test(NAME gpu_kmeans COMMAND test_kmeans --gpu)
set_tests_properties(gpu_kmeans PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)

# unit_kmeans_resident: Version 2's branches for a backend that keeps the
# assignment (the GPU's), over a CPU implementation of its steps: the answers of
# Version 2 without a backend, with the host's walk and the safe subset taken.
add_executable(test_kmeans_resident ${CMAKE_CURRENT_SOURCE_DIR}/test_kmeans_resident.c)
target_link_libraries(test_kmeans_resident PRIVATE mutirao_lib)
add_test(NAME unit_kmeans_resident COMMAND test_kmeans_resident)
set_tests_properties(unit_kmeans_resident PROPERTIES LABELS unit TIMEOUT 300)
