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
mutirao_scripts(900 maxsub_ranks maxsub_dist maxsub_bad_input maxsub_cli)
mutirao_gpu_unit(gpu_maxsub test_gpu_maxsub 900)
mutirao_gpu_unit(gpu_maxsub_gen test_gpu_maxsub_gen 600)
mutirao_gpu_script(gpu_maxsub_cli maxsub_gpu 600)
