# Baseline store (issue 7): per-driver-release history of results files (docs/store.md).
# Included from harness/CMakeLists.txt after pinbench_host exists. Host-only code; the lock's
# OS calls are chosen by file suffix.
if(WIN32)
  set(PINBENCH_STORE_LOCK_SOURCE src/store/store_lock_win32.cpp)
else()
  set(PINBENCH_STORE_LOCK_SOURCE src/store/store_lock_posix.cpp)
endif()
target_sources(pinbench_host PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/store/store.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/store/store_lock.cpp
  ${CMAKE_CURRENT_LIST_DIR}/${PINBENCH_STORE_LOCK_SOURCE}
)
