// The test doubles' own channel between the CUPTI double and the driver double
// (docs/test-double.md). Real CUPTI reaches the driver through a private export table; the
// doubles use one plain C export of the driver double instead, which the CUPTI double looks up by
// name in the driver already loaded (nvcuda.dll, libcuda.so.1). Only the two doubles use it.
#pragma once

#include <cstdint>

extern "C" {

// Called by the driver double before and after each call it makes callbacks for: `data` is a
// CUpti_CallbackData (cupti_callbacks.h), `subscriber` what the CUPTI double attached. The CUPTI
// double calls its subscriber's callback when that callback is enabled.
using PinbenchDoubleCuptiDispatch = void (*)(void* subscriber, std::uint32_t domain, std::uint32_t cbid,
                                             const void* data);

// The driver double's export: attaches `subscriber` with its dispatch (or detaches it, with a
// null dispatch). Returns 0, or 1 when another subscriber is attached already.
using PinbenchDoubleCuptiAttach = int (*)(PinbenchDoubleCuptiDispatch dispatch, void* subscriber);
}

namespace pinbench::doubles {
inline constexpr const char* cupti_attach_export = "pinbenchDoubleCuptiAttach";
}
