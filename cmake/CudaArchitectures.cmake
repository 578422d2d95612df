# Default targets: the users' cards, Turing (75) to Hopper (90), plus Blackwell when the
# toolkit knows it (12.8+). PTX of the newest listed arch lets a newer card JIT the kernels.
if(PINBENCH_DEFAULT_CUDA_ARCHITECTURES)
  set(_pinbench_archs 75-real 80-real 86-real 89-real 90-real)
  if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.8)
    list(APPEND _pinbench_archs 100-real 120)
  else()
    list(APPEND _pinbench_archs 90-virtual)
  endif()
  set(CMAKE_CUDA_ARCHITECTURES ${_pinbench_archs} CACHE STRING "CUDA architectures" FORCE)
endif()
