# Baseline store tests (included from harness/tests/CMakeLists.txt): layout, idempotence,
# history, the replay namespace, a writer killed mid-write, the lock and its stale-lock recovery.
target_sources(pinbench_cpu_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cpu/store_test.cpp)
