// Where the CUPTI double finds the driver double: the driver library already in the process
// (cupti_channel.hpp). Platform code: driver_link_{posix,win32}.cpp.
#pragma once

namespace pinbench::doubles {

// The loaded driver's export `name`, or nullptr (no driver loaded, or not the double).
void* driver_export(const char* name);

}  // namespace pinbench::doubles
