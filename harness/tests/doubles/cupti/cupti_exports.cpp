// The test-double CUPTI (docs/test-double.md): the callback API that the trace injection library
// (harness/src/cuda/trace_injection.cpp) resolves, with cupti_callbacks.h's signatures. It keeps
// the subscriber's callback and which callbacks are enabled, and attaches itself to the driver
// double (cupti_channel.hpp), which calls back around its host-pinning entry points. It is never
// a measurement: it only passes on what the driver double does.
#include <cupti_callbacks.h>
#include <cupti_result.h>

#include <mutex>
#include <set>
#include <utility>

#include "cupti_channel.hpp"
#include "driver_link.hpp"

// The opaque handle of cupti_callbacks.h: one per cuptiSubscribe, freed by cuptiUnsubscribe.
struct CUpti_Subscriber_st {
    CUpti_CallbackFunc callback = nullptr;
    void* userdata = nullptr;
    std::mutex mutex;  // enabling may race with the driver's callbacks on other threads
    std::set<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> enabled;
    std::set<CUpti_CallbackDomain> enabled_domains;

    bool wants(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
        const std::scoped_lock lock(mutex);
        return enabled_domains.count(domain) != 0 || enabled.count({domain, cbid}) != 0;
    }
};

namespace {

struct ResultText {
    CUptiResult code;
    const char* text;
};

constexpr ResultText result_texts[] = {
    {CUPTI_SUCCESS, "CUPTI_SUCCESS"},
    {CUPTI_ERROR_INVALID_PARAMETER, "CUPTI_ERROR_INVALID_PARAMETER"},
    {CUPTI_ERROR_NOT_INITIALIZED, "CUPTI_ERROR_NOT_INITIALIZED"},
    {CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"},
    {CUPTI_ERROR_NOT_SUPPORTED, "CUPTI_ERROR_NOT_SUPPORTED"},
    {CUPTI_ERROR_UNKNOWN, "CUPTI_ERROR_UNKNOWN"},
};

// What the driver double calls: the subscriber's callback, when enabled.
void dispatch(void* subscriber, std::uint32_t domain, std::uint32_t cbid, const void* data) {
    auto* s = static_cast<CUpti_Subscriber_st*>(subscriber);
    const auto d = static_cast<CUpti_CallbackDomain>(domain);
    if (s->wants(d, cbid)) s->callback(s->userdata, d, cbid, data);
}

PinbenchDoubleCuptiAttach driver_attach() {
    return reinterpret_cast<PinbenchDoubleCuptiAttach>(
        pinbench::doubles::driver_export(pinbench::doubles::cupti_attach_export));
}

CUptiResult enable(uint32_t on, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
                   const CUpti_CallbackId* cbid) {
    if (subscriber == nullptr || domain <= CUPTI_CB_DOMAIN_INVALID || domain >= CUPTI_CB_DOMAIN_SIZE) {
        return CUPTI_ERROR_INVALID_PARAMETER;
    }
    const std::scoped_lock lock(subscriber->mutex);
    if (cbid == nullptr && on != 0) {
        subscriber->enabled_domains.insert(domain);
    } else if (cbid == nullptr) {
        subscriber->enabled_domains.erase(domain);
    } else if (on != 0) {
        subscriber->enabled.insert({domain, *cbid});
    } else {
        subscriber->enabled.erase({domain, *cbid});
    }
    return CUPTI_SUCCESS;
}

}  // namespace

extern "C" {

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** str) {
    if (str == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    for (const ResultText& r : result_texts) {
        if (r.code == result) {
            *str = r.text;
            return CUPTI_SUCCESS;
        }
    }
    *str = "CUPTI_ERROR_UNKNOWN";
    return CUPTI_SUCCESS;
}

// One subscriber, as CUPTI allows: the driver double refuses a second.
CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                                    void* userdata) {
    if (subscriber == nullptr || callback == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    const PinbenchDoubleCuptiAttach attach = driver_attach();
    if (attach == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;  // no driver double in the process
    auto* s = new CUpti_Subscriber_st;
    s->callback = callback;
    s->userdata = userdata;
    if (attach(dispatch, s) != 0) {
        delete s;
        return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    }
    *subscriber = s;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
    if (subscriber == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    const PinbenchDoubleCuptiAttach attach = driver_attach();
    if (attach == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;
    attach(nullptr, subscriber);
    delete subscriber;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable_it, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    return enable(enable_it, subscriber, domain, &cbid);
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable_it, CUpti_SubscriberHandle subscriber,
                                       CUpti_CallbackDomain domain) {
    return enable(enable_it, subscriber, domain, nullptr);
}

}  // extern "C"
