// For synclab-grade's submissions stage, its records (CSV, JUnit, a platform's JSON) and its
// console: text a submission controls (a folder's name, a compiler's log, a kernel's printf)
// made safe to write into each of them.
#pragma once
#include <cstddef>
#include <string>

namespace grade {

// Length of the UTF-8 sequence starting at s[i], 0 when it is not a valid one.
std::size_t utf8_length(const std::string &s, std::size_t i);

// Why a folder's name cannot be shown as it is, as a phrase ("a control character (\x1b)",
// "a byte that is not UTF-8 (\xff)"); "" when it is valid UTF-8 with no control character.
std::string name_flaw(const std::string &name);

// A student's name as the console and every record show it: unchanged when it is valid UTF-8
// with no control character and no backslash; otherwise every backslash doubled, line breaks
// as \n and \r, and other control characters and bytes that are not UTF-8 as \xHH. One line,
// and no two names give the same text: --resume finds each folder's rows by it.
std::string shown(const std::string &name);

// A text (a reason, a kernel's output) with its control characters but tab and newline, and
// its bytes that are not UTF-8, as \xHH; the rest, backslashes too, as it was. `xml`: also
// U+FFFE and U+FFFF, which XML 1.0 forbids.
std::string shown_text(const std::string &text, bool xml = false);

// A number with `digits` digits after the point ("1.50"), as the gradebook and the JUnit
// reports write seconds.
std::string fixed(double x, int digits);

}  // namespace grade
