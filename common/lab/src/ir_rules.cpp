#include "ir_rules.hpp"

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "synclab/errors.hpp"

namespace synclab::ir_rules {

namespace {

// Where each !dbg location points: the file and line of the student's text (#line kept them).
class Lines {
public:
    explicit Lines(const std::vector<std::string> &ir) {
        static const std::regex node(R"(^!(\d+) = (?:distinct )?!(\w+)\((.*)\)$)"),
            field(R"(\b(line|file|scope|filename): (!?\d+|"(?:[^"\\]|\\.)*"))");
        for (const auto &l : ir) {
            std::smatch m;
            if (!std::regex_match(l, m, node)) continue;
            Node &n = nodes_[m[1]];
            n.kind = m[2];
            const std::string body = m[3];
            for (std::sregex_iterator f(body.begin(), body.end(), field), end; f != end; ++f)
                n.fields[(*f)[1]] = (*f)[2];
        }
    }

    // "file:line" of an instruction's `!dbg !N`, or `fallback`.
    std::string where(const std::string &instruction, const std::string &fallback) const {
        static const std::regex dbg(R"(!dbg !(\d+))");
        std::smatch m;
        if (!std::regex_search(instruction, m, dbg)) return fallback;
        const Node *loc = find(m[1]);
        if (!loc || !loc->fields.count("line")) return fallback;
        std::string file;
        for (const Node *s = find(ref(*loc, "scope")); s && file.empty(); s = find(ref(*s, "scope"))) {
            if (const Node *f = find(ref(*s, "file")); f && f->fields.count("filename")) {
                const std::string q = f->fields.at("filename");
                file = q.size() >= 2 ? q.substr(1, q.size() - 2) : q;
            }
            if (s->kind == "DIFile") break;
        }
        return (file.empty() ? fallback : file) + ":" + loc->fields.at("line");
    }

private:
    struct Node {
        std::string kind;
        std::map<std::string, std::string> fields;
    };
    std::map<std::string, Node> nodes_;

    static std::string ref(const Node &n, const char *key) {
        const auto it = n.fields.find(key);
        return it == n.fields.end() || it->second.empty() || it->second[0] != '!' ? ""
                                                                                : it->second.substr(1);
    }
    const Node *find(const std::string &id) const {
        const auto it = nodes_.find(id);
        return it == nodes_.end() ? nullptr : &it->second;
    }
};

// The type a pointer type points to: "i32 addrspace(1)**" -> "i32 addrspace(1)*".
std::string pointee(std::string t) {
    while (!t.empty() && t.back() == ' ') t.pop_back();
    if (!t.empty() && t.back() == '*') t.pop_back();
    static const std::regex space(R"( addrspace\(\d+\)$)");
    return std::regex_replace(t, space, "");
}

// Whether values of type `t` hold a pointer: a pointer, or an aggregate with one in it.
bool holds_pointer(const std::string &t, const std::map<std::string, std::string> &types,
                   int depth = 0) {
    if (t.find('*') != std::string::npos) return true;
    if (depth > 16) return true;
    static const std::regex named(R"(%[\w.$]+)");
    for (std::sregex_iterator n(t.begin(), t.end(), named), end; n != end; ++n) {
        const auto it = types.find(n->str());
        if (it != types.end() && holds_pointer(it->second, types, depth + 1)) return true;
    }
    return false;
}

struct Rule {
    std::regex pattern;
    std::string what;  // what the kernel did, then what to write instead
};

// The instructions refused on sight.
const std::vector<Rule> &rules() {
    static const std::vector<Rule> all{
        {std::regex(R"(\bptrtoint\b)"),
         "a pointer is turned into a number, whose bits differ between implementations: index "
         "the buffer instead (a[i], never (ulong)a or a - b)"},
        {std::regex(R"(\binttoptr\b)"),
         "a number is turned into a pointer: take pointers only from the kernel's arguments and "
         "index them"},
        {std::regex(R"(\bicmp [us](?:lt|gt|le|ge) [^,]*\*)"),
         "two pointers are ordered (<, >), and how buffers lie in memory differs between "
         "implementations: compare indices instead"},
        {std::regex(R"(\b(?:call|invoke|callbr)\b[^@"]*\basm\b)"),
         "inline assembly runs what the one machine it was written for runs: write OpenCL C"},
        {std::regex(R"(@llvm\.fmuladd|\b(?:f(?:add|sub|mul|div|rem|neg|cmp)|call|select|phi) (?:(?:contract|fast|reassoc|afn|arcp|nnan|ninf|nsz) )+)"),
         "floating-point contraction or fast-math is turned on (#pragma OPENCL FP_CONTRACT ON or "
         "a clang fp pragma), and each implementation rounds it its own way: remove the pragma, "
         "and write fma(a, b, c) where a fused multiply-add is meant"},
    };
    return all;
}

// What an OpenCL C built-in (by its name, demangled: "_Z3sinf" -> "sin") computes that
// implementations may round each their own way, and what to write instead; "" where it is exact
// everywhere (fma, sqrt, floor, ...).
std::string inexact_builtin(const std::string &name) {
    if (name == "mad")
        return "mad() rounds as each implementation chooses: write a * b + c, or fma(a, b, c) for "
               "one rounding";
    if (name == "mad24" || name == "mul24")
        return name + "() gives an implementation's own result for operands past 24 bits: write "
                      "the plain integer * and +";
    if (name.rfind("native_", 0) == 0 || name.rfind("half_", 0) == 0)
        return name + "() returns what each implementation computes: these labs need no such "
                      "function";
    static const std::set<std::string> within_ulps{
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
        "acosh", "atanh", "sinpi", "cospi", "tanpi", "asinpi", "acospi", "atanpi", "atan2pi",
        "sincos", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "pow", "pown",
        "powr", "rootn", "cbrt", "rsqrt", "hypot", "erf", "erfc", "tgamma", "lgamma", "lgamma_r"};
    if (within_ulps.count(name))
        return name + "() is exact only to within a few ulp, and POCL, Oclgrind and a GPU round "
                      "it each their own way: a graded kernel may not call it (these labs need "
                      "none; +, -, *, /, sqrt and fma are the same everywhere)";
    return "";
}

// The OpenCL C built-in a call names ("_Z3sinf" -> "sin"), or "".
std::string builtin_called(const std::string &line) {
    static const std::regex call(R"(\bcall\b[^@]*@_Z(\d+)(\w+)\()");
    std::smatch m;
    if (!std::regex_search(line, m, call)) return "";
    const std::size_t n = std::stoul(m[1].str());
    const std::string rest = m[2];
    return n <= rest.size() ? rest.substr(0, n) : "";
}

// Compiler intrinsics a kernel's own code may reach: debug records, and what -O0 makes of
// copies, struct assignment and lifetimes. Any other (a cycle counter, a frame address) is
// refused.
bool allowed_intrinsic(const std::string &name) {
    for (const char *prefix : {"llvm.dbg.", "llvm.memcpy.", "llvm.memset.", "llvm.memmove.",
                               "llvm.lifetime.", "llvm.fma.", "llvm.fabs.", "llvm.expect."})
        if (name.rfind(prefix, 0) == 0) return true;
    return false;
}

[[noreturn]] void refuse(const std::string &where, const std::string &what) {
    throw RefusedSource(where + ": error: " + what, where, what, "");
}

// A bitcast that reads a pointer's storage as something else (`*(ulong *)&p`, a union of a
// pointer and a number), or writes a number where a pointer is kept.
bool puns_pointer(const std::string &l, const std::map<std::string, std::string> &types) {
    static const std::regex cast(R"(\bbitcast (.+?) (?:%[\w.$]+|@[\w.$]+) to (.+?)(?:,|\)|$))");
    std::smatch m;
    if (!std::regex_search(l, m, cast)) return false;
    const std::string from = m[1], to = m[2];
    if (from.empty() || to.empty() || from.back() != '*' || to.back() != '*') return false;
    const std::string a = pointee(from), b = pointee(to);
    const bool pa = holds_pointer(a, types), pb = holds_pointer(b, types);
    if (pa != pb) return true;
    // Both hold pointers: fine while both are pointers (a cast between pointer types), not
    // when one is an aggregate read as another (its pointers' bits land in other fields).
    return pa && (a.back() != '*' || b.back() != '*');
}

}  // namespace

void check(const std::string &ir, const std::string &shown) {
    std::vector<std::string> lines;
    {
        std::istringstream in(ir);
        for (std::string l; std::getline(in, l);) lines.push_back(l);
    }
    std::map<std::string, std::string> types;
    static const std::regex type_def(R"(^(%[\w.$]+) = type (.*)$)"),
        intrinsic(R"(\bcall\b[^@]*@(llvm\.[\w.]+)\()");
    for (const auto &l : lines) {
        std::smatch m;
        if (std::regex_match(l, m, type_def)) types[m[1]] = m[2];
    }
    const Lines where(lines);
    for (const auto &l : lines) {
        if (l.empty() || l[0] == '!' || l[0] == ';' || l.rfind("declare ", 0) == 0 ||
            l.rfind("attributes ", 0) == 0 || (l[0] == '@' && l.find(" c\"") != std::string::npos))
            continue;  // metadata, declarations, and string constants (a word in a string is text)
        for (const auto &r : rules())
            if (std::regex_search(l, r.pattern)) refuse(where.where(l, shown), r.what);
        if (puns_pointer(l, types))
            refuse(where.where(l, shown),
                   "a pointer's storage is read as a number (a cast of its address, or a union): "
                   "its bits differ between implementations; index the buffer instead");
        if (const std::string why = inexact_builtin(builtin_called(l)); !why.empty())
            refuse(where.where(l, shown), why);
        std::smatch m;
        if (std::regex_search(l, m, intrinsic) && !allowed_intrinsic(m[1]))
            refuse(where.where(l, shown),
                   "the compiler built-in " + m[1].str() + " (a __builtin_ function) is not "
                   "OpenCL C, and what it returns differs between implementations: use OpenCL "
                   "C's own functions");
    }
}

}  // namespace synclab::ir_rules
