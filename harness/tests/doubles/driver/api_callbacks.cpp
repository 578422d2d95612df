// The CUPTI callbacks the double makes (api_callbacks.hpp), with cupti_callbacks.h's structure.
#include "api_callbacks.hpp"

#include <cupti_callbacks.h>

#include <cstdio>

#include "../cupti/cupti_channel.hpp"
#include "driver.hpp"

namespace pinbench::driver_double {
namespace {

void callback(std::uint32_t cbid, const CUpti_CallbackData& data) {
    const CuptiHook hook = driver().cupti_hook();
    if (hook.dispatch != nullptr) hook.dispatch(hook.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &data);
}

CUpti_CallbackData data_of(CUpti_ApiCallbackSite site, const char* name, const void* params, CUresult* result,
                           std::uint64_t* correlation_data, std::uint32_t correlation_id) {
    CUpti_CallbackData d{};
    d.callbackSite = site;
    d.functionName = name;
    d.functionParams = params;
    d.functionReturnValue = result;  // read at EXIT only, as CUPTI documents
    d.symbolName = nullptr;          // driver API calls have none
    Context* context = current_context();
    d.context = reinterpret_cast<CUcontext>(context);
    d.contextUid = context == nullptr ? 0 : static_cast<std::uint32_t>(context->device) + 1;
    d.correlationData = correlation_data;
    d.correlationId = correlation_id;
    return d;
}

}  // namespace

ApiCallbacks::ApiCallbacks(std::uint32_t cbid, const char* name, const void* params)
    : cbid_(cbid), name_(name), params_(params), correlation_id_(driver().next_correlation_id()) {
    CUresult none = CUDA_SUCCESS;
    callback(cbid_, data_of(CUPTI_API_ENTER, name_, params_, &none, &correlation_data_, correlation_id_));
}

void ApiCallbacks::exit(CUresult result) {
    callback(cbid_, data_of(CUPTI_API_EXIT, name_, params_, &result, &correlation_data_, correlation_id_));
}

}  // namespace pinbench::driver_double

// The channel's export (../cupti/cupti_channel.hpp), looked up by the CUPTI double.
extern "C" int pinbenchDoubleCuptiAttach(PinbenchDoubleCuptiDispatch dispatch, void* subscriber) {
    return pinbench::driver_double::driver().attach_cupti({dispatch, subscriber}) ? 0 : 1;
}
