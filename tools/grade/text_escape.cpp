// Text a submission controls, escaped for synclab-grade's records and console.
#include "text_escape.hpp"

#include <cstdio>

namespace grade {
namespace {

enum class Piece { plain, control, not_utf8, nonchar };

// What starts at s[i], and its length in *n: a character, a control character (C0, DEL and C1:
// a terminal runs them), a byte that is not UTF-8, or U+FFFE/U+FFFF (no XML character).
Piece piece_at(const std::string &s, std::size_t i, std::size_t *n) {
    *n = utf8_length(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    if (*n == 0) {
        *n = 1;
        return Piece::not_utf8;
    }
    const auto d = *n > 1 ? static_cast<unsigned char>(s[i + 1]) : 0;
    if ((*n == 1 && (c < 0x20 || c == 0x7f)) || (c == 0xc2 && d < 0xa0)) return Piece::control;
    if (c == 0xef && d == 0xbf && static_cast<unsigned char>(s[i + 2]) >= 0xbe) return Piece::nonchar;
    return Piece::plain;
}

std::string hex(const std::string &s, std::size_t i, std::size_t n) {
    std::string out;
    for (std::size_t k = i; k < i + n; ++k) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(s[k]));
        out += buf;
    }
    return out;
}

}  // namespace

std::size_t utf8_length(const std::string &s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80          ? 1
                          : (c >> 5) == 6   ? 2
                          : (c >> 4) == 14  ? 3
                          : (c >> 3) == 30  ? 4
                                            : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return 0;
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are no UTF-8 either.
    const auto d = n > 1 ? static_cast<unsigned char>(s[i + 1]) : 0;
    if ((n == 2 && c < 0xc2) || (c == 0xe0 && d < 0xa0) || (c == 0xed && d >= 0xa0) ||
        (c == 0xf0 && d < 0x90) || (c == 0xf4 && d >= 0x90) || c > 0xf4)
        return 0;
    return n;
}

std::string name_flaw(const std::string &name) {
    for (std::size_t i = 0, n = 0; i < name.size(); i += n) {
        const Piece p = piece_at(name, i, &n);
        if (p == Piece::control) return "a control character (" + hex(name, i, n) + ")";
        if (p == Piece::not_utf8) return "a byte that is not UTF-8 (" + hex(name, i, n) + ")";
    }
    return "";
}

// A backslash is doubled wherever anything is escaped, and a name that needs no escape has
// none: so an escaped name never reads as another folder's.
std::string shown(const std::string &name) {
    if (name.find('\\') == std::string::npos && name_flaw(name).empty()) return name;
    std::string out;
    for (std::size_t i = 0, n = 0; i < name.size(); i += n) {
        const Piece p = piece_at(name, i, &n);
        if (name[i] == '\\') out += "\\\\";
        else if (name[i] == '\n') out += "\\n";
        else if (name[i] == '\r') out += "\\r";
        else if (p == Piece::control || p == Piece::not_utf8) out += hex(name, i, n);
        else out += name.substr(i, n);
    }
    return out;
}

std::string shown_text(const std::string &text, bool xml) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0, n = 0; i < text.size(); i += n) {
        const Piece p = piece_at(text, i, &n);
        const bool kept = text[i] == '\n' || text[i] == '\t';
        if ((p == Piece::control && !kept) || p == Piece::not_utf8 || (xml && p == Piece::nonchar))
            out += hex(text, i, n);
        else out.append(text, i, n);
    }
    return out;
}

std::string fixed(double x, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, x);
    return buf;
}

}  // namespace grade
