# Cross-compiling pinbench for 64-bit Windows with mingw-w64 on Debian/Ubuntu
# (g++-mingw-w64-x86-64). The whole of pinbench builds this way, the CUDA core included: it
# loads nvcuda.dll at run time and needs only the CUDA headers (docs/driver-api.md); the programs
# that need nvcc are not built. ci/check_windows.sh uses it and runs the result under Wine.
#
#   cmake -S . -B build/mingw -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake \
#         -DPINBENCH_MINGW_PREFIX=<mingw builds of yaml-cpp and GoogleTest>
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(PINBENCH_MINGW_TRIPLE x86_64-w64-mingw32)

# The -posix variants: std::thread and std::mutex need the winpthreads thread model with GCC 12.
find_program(CMAKE_C_COMPILER NAMES ${PINBENCH_MINGW_TRIPLE}-gcc-posix ${PINBENCH_MINGW_TRIPLE}-gcc REQUIRED)
find_program(CMAKE_CXX_COMPILER NAMES ${PINBENCH_MINGW_TRIPLE}-g++-posix ${PINBENCH_MINGW_TRIPLE}-g++ REQUIRED)
find_program(CMAKE_RC_COMPILER NAMES ${PINBENCH_MINGW_TRIPLE}-windres)

# Programs are found on the build machine; headers, libraries and packages only in the target's
# trees (the mingw sysroot and CMAKE_PREFIX_PATH), never Linux's /usr/include or /usr/lib.
# PINBENCH_MINGW_PREFIX: where the mingw builds of the dependencies are installed
# (ci/check_windows.sh: .deps/mingw); searched like the sysroot.
set(CMAKE_FIND_ROOT_PATH /usr/${PINBENCH_MINGW_TRIPLE})
if(PINBENCH_MINGW_PREFIX)
  list(APPEND CMAKE_FIND_ROOT_PATH ${PINBENCH_MINGW_PREFIX})
  list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES PINBENCH_MINGW_PREFIX)
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Static runtime (libgcc, libstdc++, winpthreads): the .exe runs on a machine, or in a Wine
# prefix, without the mingw DLLs beside it.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")

# Wine runs the cross-built programs (test discovery, try_run); it is optional.
find_program(PINBENCH_WINE NAMES wine64 wine)
if(PINBENCH_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${PINBENCH_WINE})
endif()
