// Standard output that can fail loudly. pinbench's commands print to std::cout; a write that
// fails (a full device, a closed pipe, a closed descriptor) must end the command with one line
// on stderr and exit 3, never 0 (README.md, "Exit codes"). Platform code:
// harness/src/platform/standard_streams_{posix,win32}.cpp.
#pragma once

#include <string>

namespace pinbench {

// Called first in main. POSIX: a closed descriptor 0, 1 or 2 is occupied by /dev/null opened the
// wrong way round, so no file pinbench opens lands on it and every write to it still fails; and
// SIGPIPE gets a handler that does nothing, so a write to a closed pipe fails with EPIPE instead
// of killing the process (a handler, unlike SIG_IGN, is reset by exec: the programs pinbench
// starts get the default). Windows: a closed pipe is an error there already; when standard output
// or error is a console, its output code page is set to UTF-8 until the program exits, so the
// UTF-8 pinbench writes shows as the letters it is (standard_streams_win32.cpp says why).
void guard_standard_streams();

// Flushes standard output; "" when everything written so far reached it, else why not.
std::string standard_output_error();

// Standard error is a terminal (a console on Windows): progress rewrites one line there.
bool standard_error_is_terminal();

// The width of standard error's terminal in columns; 0 when unknown (not a terminal).
int standard_error_columns();

// ANSI colour may be written to standard error: it is a terminal, NO_COLOR is unset or empty
// (no-color.org), and on Windows the console takes escape sequences (its virtual-terminal mode,
// Windows 10 and later, is turned on here).
bool colour_on_standard_error();

}  // namespace pinbench
