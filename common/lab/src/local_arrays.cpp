// The __local memory a program text's kernels declare (local_arrays.hpp).
#include "local_arrays.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "synclab/errors.hpp"

namespace synclab::local_arrays {

namespace {

// The bytes of an LLVM IR type, with its alignment (spir64: natural alignment, 8-byte pointers),
// saturating far above any limit.
struct Layout {
    long double bytes = 0, align = 1;
};

Layout layout_of(const std::string &t, std::size_t &at, const std::map<std::string, std::string> &structs);

Layout layout_of_struct(const std::string &body, const std::map<std::string, std::string> &structs) {
    // "{ i32, double }" or "<{ ... }>" (packed)
    const bool packed = body.rfind("<{", 0) == 0;
    std::size_t at = packed ? 2 : 1;
    Layout s;
    while (at < body.size()) {
        while (at < body.size() && (body[at] == ' ' || body[at] == ',')) ++at;
        if (at >= body.size() || body[at] == '}') break;
        const Layout f = layout_of(body, at, structs);
        const long double a = packed ? 1 : f.align;
        s.bytes = std::ceil(s.bytes / a) * a + f.bytes;
        s.align = std::max(s.align, a);
    }
    s.bytes = std::ceil(s.bytes / s.align) * s.align;
    return s;
}

Layout layout_of(const std::string &t, std::size_t &at, const std::map<std::string, std::string> &structs) {
    Layout l;
    auto number = [&] {
        std::size_t end = at;
        while (end < t.size() && std::isdigit(static_cast<unsigned char>(t[end]))) ++end;
        const long double n = std::strtold(t.substr(at, end - at).c_str(), nullptr);
        at = end;
        return n;
    };
    if (t[at] == '[' || t[at] == '<') {  // [N x T], <N x T>
        const bool vector = t[at] == '<';
        ++at;
        const long double n = number();
        at += 3;  // " x "
        const Layout e = layout_of(t, at, structs);
        ++at;  // ']' or '>'
        if (vector) {
            long double p = 1;
            while (p < n * e.bytes) p *= 2;  // a 3-vector takes 4 elements' room
            l = {p, p};
        } else {
            l = {n * e.bytes, e.align};
        }
    } else if (t[at] == '%') {
        std::size_t end = at + 1;
        while (end < t.size() && t[end] != ',' && t[end] != ' ' && t[end] != ']' && t[end] != '}' && t[end] != '>' && t[end] != '*') ++end;
        const auto it = structs.find(t.substr(at, end - at));
        at = end;
        if (it != structs.end()) l = layout_of_struct(it->second, structs);
    } else if (t[at] == '{' || t.compare(at, 2, "<{") == 0) {
        int depth = 0;
        const std::size_t from = at;
        do {
            if (t[at] == '{') ++depth;
            if (t[at] == '}') --depth;
            ++at;
        } while (at < t.size() && depth);
        if (at < t.size() && t[at] == '>') ++at;
        l = layout_of_struct(t.substr(from, at - from), structs);
    } else {
        std::size_t end = at;
        while (end < t.size() && (std::isalnum(static_cast<unsigned char>(t[end])))) ++end;
        const std::string s = t.substr(at, end - at);
        at = end;
        static const std::map<std::string, long double> sizes{
            {"i1", 1}, {"i8", 1}, {"i16", 2}, {"i32", 4}, {"i64", 8}, {"half", 2},
            {"float", 4}, {"double", 8}, {"ptr", 8}};
        const auto it = sizes.find(s);
        l.bytes = l.align = it == sizes.end() ? 8 : it->second;
    }
    // A pointer to anything: " addrspace(N)*" and stars.
    std::size_t p = at;
    if (t.compare(p, 11, " addrspace(") == 0) p = t.find(')', p) + 1;
    if (p < t.size() && t[p] == '*') {
        while (p < t.size() && t[p] == '*') ++p;
        at = p;
        l = {8, 8};
    }
    return l;
}

// The bytes of the declaration after a `local` at `at`, when it is one plain array or scalar of a
// scalar or vector type with literal sizes ("float scratch[256];", "volatile uint4 x[8][2];",
// "int last;"), or 0 for one pointer to local memory ("float *p = scratch;"); else -1.
long double plain_array_bytes(const std::string &text, std::size_t at) {
    static const std::map<std::string, long double> scalars{
        {"char", 1}, {"uchar", 1}, {"short", 2}, {"ushort", 2}, {"half", 2}, {"int", 4},
        {"uint", 4}, {"float", 4}, {"long", 8}, {"ulong", 8}, {"double", 8}};
    auto skip_space = [&] {
        while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    };
    auto word = [&] {
        skip_space();
        const std::size_t from = at;
        while (at < text.size() && (std::isalnum(static_cast<unsigned char>(text[at])) || text[at] == '_')) ++at;
        return text.substr(from, at - from);
    };
    long double element = 0;
    std::string name;
    bool pointer = false;  // `local float *p = ...;`: a private pointer to local memory
    for (std::string w = word(); !w.empty(); w = word()) {
        if (w == "volatile" || w == "const") continue;
        if (!name.empty()) return -1;  // two names: not a plain declaration
        if (element) {
            name = w;
            continue;
        }
        if (w == "unsigned" || w == "signed") {
            const std::size_t back = at;
            const std::string next = word();
            if (next != "char" && next != "short" && next != "int" && next != "long") at = back;
            element = scalars.at(next == "char" || next == "short" || next == "long" ? next : "int");
            continue;
        }
        std::size_t digits = w.size();
        while (digits && std::isdigit(static_cast<unsigned char>(w[digits - 1]))) --digits;
        const auto it = scalars.find(w.substr(0, digits));
        const std::string n = w.substr(digits);
        if (it == scalars.end() || !(n.empty() || n == "2" || n == "3" || n == "4" || n == "8" || n == "16"))
            return -1;
        element = it->second * (n.empty() ? 1 : n == "3" ? 4 : std::stoi(n));
        skip_space();
        for (; at < text.size() && text[at] == '*'; skip_space()) {
            ++at;
            pointer = true;
        }
    }
    if (!element || name.empty()) return -1;
    if (pointer) {  // one declarator (a comma could start a local array), then its end
        int depth = 0;
        for (; at < text.size() && text[at] != ';'; ++at) {
            const char c = text[at];
            if (c == '(' || c == '[') ++depth;
            if (c == ')' || c == ']') --depth;
            if ((c == ',' && depth == 0) || c == '{' || c == '#' || c == '"' || c == '\'') return -1;
        }
        return at < text.size() ? 0 : -1;
    }
    long double bytes = element;
    for (skip_space(); at < text.size() && text[at] == '['; skip_space()) {
        ++at;
        const std::string literal = word();
        skip_space();
        if (literal.empty() || at >= text.size() || text[at] != ']') return -1;
        ++at;
        static const std::regex integer(R"(^(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*$)");
        std::smatch m;
        if (!std::regex_match(literal, m, integer)) return -1;
        errno = 0;
        char *end = nullptr;
        const unsigned long long v = std::strtoull(literal.c_str(), &end, 0);  // 0...: octal, as C
        if (errno || end != literal.c_str() + m[1].length()) return -1;
        bytes *= static_cast<long double>(v);
    }
    return at < text.size() && text[at] == ';' ? bytes : -1;  // no [ ]: one scalar
}

// Calls `at(end)` for each `local` or `__local` outside every parenthesis, literal and directive
// line (a kernel's __local arguments and casts are inside one; a declaration in its body, where
// alone OpenCL C allows one, is not), `end` just past the keyword, until `at` returns false.
// Returns false when it did.
template <class At>
bool each_local_keyword(const std::string &text, At at) {
    int depth = 0;
    char quote = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quote) {
            if (c == '\\') ++i;
            else if (c == quote || c == '\n') quote = 0;
        } else if (c == '#' && (i == 0 || text[i - 1] == '\n')) {
            i = std::min(text.find('\n', i), text.size());  // a directive line: #line, #undef, #pragma
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '(') {
            ++depth;
        } else if (c == ')') {
            depth = std::max(0, depth - 1);
        } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            std::size_t j = i;
            while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
            const std::string id = text.substr(i, j - i);
            if (depth == 0 && (id == "local" || id == "__local") && !at(j)) return false;
            i = j - 1;
        }
    }
    return true;
}

}  // namespace

bool may_declare(const std::string &text) {
    return !each_local_keyword(text, [](std::size_t) { return false; });
}

bool plainly_within(const std::string &text, std::size_t limit) {
    long double total = 0;
    return each_local_keyword(text, [&](std::size_t end) {
        const long double bytes = plain_array_bytes(text, end);
        return bytes >= 0 && (total += bytes) <= static_cast<long double>(limit);
    });
}

void check_ir(const std::string &ir, const std::string &shown, std::size_t limit) {
    std::map<std::string, std::string> structs;
    static const std::regex type_def(R"(^(%[\w.]+) = type (.*)$)"),
        local(R"(^@([\w$]+)\.([\w$.]+) = internal addrspace\(3\) global (.*?) (?:undef|zeroinitializer|poison))");
    std::istringstream in(ir);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    for (const auto &l : lines) {
        std::smatch m;
        if (std::regex_search(l, m, type_def)) structs[m[1]] = m[2];
    }
    std::map<std::string, std::pair<long double, std::pair<std::string, long double>>> per_kernel;
    for (const auto &l : lines) {
        std::smatch m;
        if (!std::regex_search(l, m, local)) continue;
        const std::string type = m[3];
        std::size_t at = 0;
        const long double bytes = layout_of(type, at, structs).bytes;
        auto &k = per_kernel[m[1]];
        k.first += bytes;
        if (bytes >= k.second.second) k.second = {m[2], bytes};
    }
    for (const auto &[kernel, sum] : per_kernel) {
        if (sum.first <= static_cast<long double>(limit)) continue;
        auto text_of = [](long double v) {
            std::ostringstream o;
            o.precision(0);
            o << std::fixed << v;
            return o.str();
        };
        const std::string what = "kernel " + kernel + " declares " + text_of(sum.first) +
                                 " bytes of __local arrays (the largest, " + sum.second.first + ", " +
                                 text_of(sum.second.second) + " bytes), more than the " +
                                 std::to_string(limit) + " a GPU gives a work-group: make them "
                                 "smaller, or size them from get_local_size(0) through a __local argument";
        throw BuildError(shown + ": error: " + what, shown, what, "");
    }
}

}  // namespace synclab::local_arrays
