# Staging ring and benchmark-support tests (included from harness/tests/CMakeLists.txt).
# CPU: the copy-thread pool, the slot schedule (with a simulated device), the ring's config
# validation (done before any CUDA call) and the pure helpers of the benchmark programs'
# context (benchmarks/topology.cpp: link rate, PCI address, CPU list).
target_sources(pinbench_cpu_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cpu/staging_copy_pool_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/staging_slot_schedule_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/staging_config_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/staging_bench_topology_test.cpp
  ${PROJECT_SOURCE_DIR}/benchmarks/topology.cpp
)
# "benchmarks/topology.hpp" from the repository root: no bare benchmark header names.
target_include_directories(pinbench_cpu_tests PRIVATE ${PROJECT_SOURCE_DIR})
# GPU: bit-exact transfers through a real ring; skips without a device.
target_sources(pinbench_gpu_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/gpu/staging_ring_test.cpp)
