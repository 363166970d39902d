# Multi-node tests: a two-node Slurm cluster on this machine (network + UTS
# namespaces mtn1 and mtn2, tests/slurm/multinode_up.sh), started once by the
# fixture test multinode_up and stopped by multinode_down. Labels multinode and
# slurm (so -LE slurm leaves them out too). Run alone: ctest -L multinode.
# Each script also brings the cluster up itself when it is down (idempotent),
# and exits 77 (skipped) where this machine cannot hold it (not root, no
# namespaces), unless MUTIRAO_REQUIRE_SLURM=1 (CI) makes that a failure.
# The tests run one at a time (RESOURCE_LOCK multinode): the faults test kills
# a node's daemons. multinode_up and multinode_down run with no other test
# (RUN_SERIAL): they add and delete network interfaces, and an MPI start-up
# that lists the interfaces meanwhile (MPICH's UCX) can fail with "No such
# device".
set(MUTIRAO_MN ${CMAKE_CURRENT_LIST_DIR}/slurm)

add_test(NAME multinode_up COMMAND bash ${MUTIRAO_MN}/multinode_up.sh)
set_tests_properties(multinode_up PROPERTIES LABELS "multinode;slurm" FIXTURES_SETUP multinode
                                             RESOURCE_LOCK multinode RUN_SERIAL TRUE TIMEOUT 180
                                             SKIP_RETURN_CODE 77)
add_test(NAME multinode_down COMMAND bash ${MUTIRAO_MN}/multinode_down.sh)
set_tests_properties(multinode_down PROPERTIES LABELS "multinode;slurm" FIXTURES_CLEANUP multinode
                                               RESOURCE_LOCK multinode RUN_SERIAL TRUE TIMEOUT 120)

# mutirao_multinode(name timeout script [more arguments]): test multinode_<name>.
function(mutirao_multinode name timeout script)
  add_test(NAME multinode_${name}
           COMMAND bash ${MUTIRAO_MN}/${script} $<TARGET_FILE:mutirao> ${PROJECT_SOURCE_DIR}
                   ${MPIEXEC_EXECUTABLE} ${ARGN})
  set_tests_properties(multinode_${name} PROPERTIES LABELS "multinode;slurm" FIXTURES_REQUIRED multinode
                                                    RESOURCE_LOCK multinode TIMEOUT ${timeout}
                                                    SKIP_RETURN_CODE 77)
  if(DEFINED MPI_TEST_ENV) # MPIEXEC_PREFLAGS for the 1-rank references
    set_tests_properties(multinode_${name} PROPERTIES ENVIRONMENT "${MPI_TEST_ENV}")
  endif()
endfunction()

mutirao_multinode(launch 180 multinode_launch.sh)
foreach(w maxsub cg fuzzy advect scenarios)
  mutirao_multinode(${w} 400 multinode_e2e.sh ${w})
endforeach()
mutirao_multinode(sbatch 400 multinode_sbatch.sh)
mutirao_multinode(faults 600 multinode_faults.sh)
