# Unit tests for the hydrophobic-region workload: FASTA reader, Kyte-Doolittle
# scores and Ruzzo-Tompa all maximal scoring subsequences (report 002 section 4.6).
# Included from tests/CMakeLists.txt. Run alone: ctest -R unit_hydro.
add_executable(test_hydro ${CMAKE_CURRENT_SOURCE_DIR}/test_hydro.c)
target_link_libraries(test_hydro PRIVATE mutirao_lib ${CMOCKA_LIBRARY})
target_compile_definitions(test_hydro PRIVATE
  MU_TEST_PROTEINS="${CMAKE_CURRENT_SOURCE_DIR}/../inputs/maxsub/proteins.fasta")
add_test(NAME unit_hydro COMMAND test_hydro)
set_tests_properties(unit_hydro PROPERTIES LABELS unit TIMEOUT 300)
