// CUPTI's callback IDs and the driver entry points' parameter structures, as cupti.h gives them,
// without the rest of cupti.h (which needs crt/host_defines.h): cupti.h declares these obsolete
// entry points' types before its generated_cuda_meta.h, so they are declared the same way here.
#pragma once

#include <cuda.h>
#include <cupti_driver_cbid.h>

// NOLINTBEGIN(modernize-use-using): cupti.h's own declarations
typedef unsigned int CUdeviceptr_v1;
typedef struct CUDA_MEMCPY2D_v1_st {
    int dummy;
} CUDA_MEMCPY2D_v1;
typedef struct CUDA_MEMCPY3D_v1_st {
    int dummy;
} CUDA_MEMCPY3D_v1;
typedef struct CUDA_ARRAY_DESCRIPTOR_v1_st {
    int dummy;
} CUDA_ARRAY_DESCRIPTOR_v1;
typedef struct CUDA_ARRAY3D_DESCRIPTOR_v1_st {
    int dummy;
} CUDA_ARRAY3D_DESCRIPTOR_v1;
// NOLINTEND(modernize-use-using)

#include <generated_cuda_meta.h>
