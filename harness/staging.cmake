# Staging ring and the CUDA-side support of benchmarks/ (included from harness/CMakeLists.txt).
# Host-only part: the copy-thread pool and the slot schedule, tested without a GPU.
find_package(Threads REQUIRED)
target_sources(pinbench_host PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/staging/copy_pool.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/staging/slot_schedule.cpp
)
target_link_libraries(pinbench_host PUBLIC Threads::Threads)

# CUDA part: the ring's pinned slots, stream and events; event timing, the zero-copy read
# kernel and registration of caller-owned memory for the benchmark programs.
target_sources(pinbench_cuda PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/cuda/staging_ring.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cuda/bench_timing.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/cuda/bench_kernels.cu
  ${CMAKE_CURRENT_LIST_DIR}/src/cuda/register_bench_support.cpp
)
