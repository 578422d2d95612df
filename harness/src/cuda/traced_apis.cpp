#include "cuda/traced_apis.hpp"

namespace pinbench::trace {

std::string api_family(const std::string& api) {
    if (api == "cuMemHostAlloc" || api == "cuMemAllocHost_v2" || api == "cuMemFreeHost") return "host_alloc";
    if (api == "cuMemHostRegister" || api == "cuMemHostRegister_v2" || api == "cuMemHostUnregister") {
        return "host_register";
    }
    if (api == "cuMemCreate" || api == "cuMemRelease") return "vmm_host";
    if (api.rfind("cuMemPool", 0) == 0 || api.rfind("cuMemAllocFromPoolAsync", 0) == 0 ||
        api.rfind("cuMemFreeAsync", 0) == 0) {
        return "pool_host";
    }
    return {};
}

ApiEffect effect_of(const std::string& api) {
    if (api == "cuMemHostAlloc" || api == "cuMemAllocHost_v2" || api == "cuMemHostRegister" ||
        api == "cuMemHostRegister_v2" || api == "cuMemCreate") {
        return ApiEffect::acquire;
    }
    if (api == "cuMemFreeHost" || api == "cuMemHostUnregister" || api == "cuMemRelease") {
        return ApiEffect::release;
    }
    if (api_family(api) == "pool_host") return ApiEffect::pool_reserved;
    return ApiEffect::none;
}

std::string api_effect(const std::string& api) {
    switch (effect_of(api)) {
        case ApiEffect::acquire:
            return "acquire";
        case ApiEffect::release:
            return "release";
        case ApiEffect::pool_reserved:
            return "pool_reserved";
        case ApiEffect::none:
            break;
    }
    return {};
}

std::vector<std::string> family_api_variants(const std::string& family) {
    if (family == "host_alloc") return {"cudaHostAlloc", "cudaMallocHost"};
    if (family == "host_register") return {"cudaHostRegister"};
    if (family == "vmm_host") return {"cuMemCreate:host_numa", "cuMemCreate:host"};
    if (family == "pool_host") return {"cudaMallocFromPoolAsync:host_numa", "cudaMallocFromPoolAsync:host"};
    return {};
}

}  // namespace pinbench::trace
