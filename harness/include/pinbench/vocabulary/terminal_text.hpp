// Text pinbench did not write itself (a results file's driver release or command, a scenario's
// description, a path, a word typed on the command line, a child's output), made safe to print
// on a terminal: one function, used by every message and listing that shows such text, so that a
// file can neither forge a line of the answer nor recolour or erase one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pinbench {

// UTF-8 as Python's strict decoder reads it (no overlong forms, no surrogates, nothing above
// U+10FFFF): the length of the well-formed sequence starting at byte i; 0 when none starts there.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

// `s` with every character a terminal would act on escaped, so that it prints as one line of
// inert text: \n, \r and \t; the other C0 controls (ESC included), DEL and invalid UTF-8 bytes
// as \xNN; the C1 controls (U+0080 to U+009F, 8-bit CSI among them) and the bidirectional
// overrides and isolates (U+202A to U+202E, U+2066 to U+2069) as \uNNNN. A backslash stays as it
// is. Text without any of these is returned unchanged.
std::string terminal_text(std::string_view s);

}  // namespace pinbench
