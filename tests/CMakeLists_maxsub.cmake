# maxsub's tests: the CPU kernels (unit), the hydrophobic-region workload (FASTA
# reader, Kyte-Doolittle scores, Ruzzo-Tompa; unit), the command on 1-4 ranks
# and bad input (mpi), and the GPU paths (gpu: exit 77 without a device).
# Included from tests/CMakeLists.txt. Run alone: ctest -R maxsub.
mutirao_unit(test_maxsub_cpu)
add_executable(test_hydro ${CMAKE_CURRENT_SOURCE_DIR}/test_hydro.c)
target_link_libraries(test_hydro PRIVATE mutirao_lib)
target_compile_definitions(test_hydro PRIVATE
  MU_TEST_PROTEINS="${CMAKE_CURRENT_SOURCE_DIR}/../inputs/maxsub/proteins.fasta")
add_test(NAME unit_hydro COMMAND test_hydro)
set_tests_properties(unit_hydro PROPERTIES LABELS unit TIMEOUT 300)
foreach(script maxsub_ranks maxsub_bad_input maxsub_cli)
  add_test(NAME mpi_${script} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/${script}.sh)
  set_tests_properties(mpi_${script} PROPERTIES LABELS mpi TIMEOUT 900 ENVIRONMENT "${MPI_TEST_ENV}")
endforeach()
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
