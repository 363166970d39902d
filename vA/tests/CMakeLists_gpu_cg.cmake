# GPU tests of the cg workload (issue 3). Included from tests/CMakeLists.txt.
# Label gpu; exit code 77 (no device, or a build without CUDA) marks them skipped.
# test_gpu_cg: kernels and whole solves against the CPU reference and a host
# emulation of the GPU's summation order, on every bundled matrix and on
# Poisson operators. cg_gpu_ranks.sh: `mutirao cg --device=gpu` on 1-4 ranks
# gives the same iterations and bitwise the same solution file.
mutirao_gpu_unit(gpu_cg test_gpu_cg 900 ${CMAKE_SOURCE_DIR}/inputs/cg)

mutirao_gpu_script(gpu_cg_ranks cg_gpu_ranks 900)
