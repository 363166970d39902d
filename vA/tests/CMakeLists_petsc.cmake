# mutirao cg against the PETSc reference, and the cg Slurm end-to-end tests.
# Included from tests/CMakeLists.txt. Run alone: ctest -L petsc, ctest -R slurm_cg.
#
# tests/ is configured before perf/, so whether perf/petsc_cg was built (only when
# PETSc is found: perf/CMakeLists.txt) is asked at generate time: PETSC_CG is the
# program's path, or empty, and the scripts skip (exit 77) when it is empty. Every
# script also skips while `mutirao cg` does not exist.
find_program(MUTIRAO_PETSC_MPIEXEC NAMES mpirun.openmpi mpiexec.openmpi
             DOC "OpenMPI launcher for perf/petsc_cg (PETSc is built on OpenMPI)")
set(MUTIRAO_PETSC_CG_FILE "$<$<TARGET_EXISTS:petsc_cg>:$<TARGET_FILE:petsc_cg>>")
set(MUTIRAO_PETSC_TEST_ENV "PETSC_CG=${MUTIRAO_PETSC_CG_FILE}")
if(MUTIRAO_PETSC_MPIEXEC)
  list(APPEND MUTIRAO_PETSC_TEST_ENV "PETSC_MPIEXEC=${MUTIRAO_PETSC_MPIEXEC}")
endif()
if(DEFINED MPI_TEST_ENV) # from tests/CMakeLists.txt: MUTIRAO, MPIEXEC, SRCDIR...
  list(APPEND MUTIRAO_PETSC_TEST_ENV ${MPI_TEST_ENV})
endif()

# Both programs on the Poisson problems and on inputs/cg/*.mtx[.gz], 1-3 ranks.
add_test(NAME petsc_cg_agreement COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cg_petsc.sh)
set_tests_properties(petsc_cg_agreement PROPERTIES LABELS petsc TIMEOUT 1800 SKIP_RETURN_CODE 77
                                                   ENVIRONMENT "${MUTIRAO_PETSC_TEST_ENV}")

# jobs/cg.sbatch (4 tasks, against a 1-rank run) and jobs/cg-scaling.sbatch (1-2 ranks).
foreach(mode run scaling)
  add_test(NAME slurm_cg_${mode}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/slurm/e2e_cg.sh $<TARGET_FILE:mutirao>
                   ${PROJECT_SOURCE_DIR} ${MPIEXEC_EXECUTABLE} ${mode})
  set_tests_properties(slurm_cg_${mode} PROPERTIES LABELS slurm RESOURCE_LOCK slurm TIMEOUT 600
                                                   SKIP_RETURN_CODE 77
                                                   ENVIRONMENT "${MUTIRAO_PETSC_TEST_ENV}")
endforeach()
