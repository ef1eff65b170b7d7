#include "synclab/verdict.hpp"

#include <cstdio>
#include <iterator>
#include <mutex>
#include <sstream>

#include "synclab/program_text.hpp"

namespace synclab {

std::string one_field(const std::string &s) {
    std::string out = s;
    for (char &c : out)
        if (c == '\t' || c == '\n' || c == '\r') c = ' ';
    return out;
}

namespace {
// Each enum's words on the wire (docs/contract.md), in its order; the last is Unknown's.
constexpr const char *kStates[] = {"verified", "wrong", "skipped", "?"};
constexpr const char *kResults[] = {"verified", "wrong",       "compile-error", "refused", "usage",
                                    "unsupported", "crash", "timeout",       "error",   "?"};
constexpr const char *kFindings[] = {"data-race",     "memory-model",  "deadlock",    "barrier-divergence",
                                     "out-of-bounds", "uninitialized", "not-checked", "?"};
static_assert(std::size(kStates) == static_cast<std::size_t>(VariantState::Unknown) + 1);
static_assert(std::size(kResults) == static_cast<std::size_t>(ResultKind::Unknown) + 1);
static_assert(std::size(kFindings) == static_cast<std::size_t>(FindingKind::Unknown) + 1);

template <typename E, std::size_t N>
E named(const std::string &word, const char *const (&names)[N]) {
    for (std::size_t i = 0; i + 1 < N; ++i)
        if (word == names[i]) return static_cast<E>(i);
    return static_cast<E>(N - 1);
}
}  // namespace

const char *wire_name(VariantState s) { return kStates[static_cast<std::size_t>(s)]; }
const char *wire_name(ResultKind k) { return kResults[static_cast<std::size_t>(k)]; }
const char *wire_name(FindingKind k) { return kFindings[static_cast<std::size_t>(k)]; }
VariantState variant_state(const std::string &word) { return named<VariantState>(word, kStates); }
ResultKind result_kind(const std::string &word) { return named<ResultKind>(word, kResults); }
FindingKind finding_kind(const std::string &word) { return named<FindingKind>(word, kFindings); }

namespace verdict {
namespace {
std::mutex m;
std::FILE *file = nullptr;
bool finished = false;

void line(const std::string &text) {
    std::lock_guard<std::mutex> lock(m);
    if (!file || finished) return;
    std::fputs((text + "\n").c_str(), file);
    std::fflush(file);
}
}  // namespace

bool open(const std::string &path) {
    std::lock_guard<std::mutex> lock(m);
    if (file) std::fclose(file);
    file = std::fopen(path.c_str(), "w");
    finished = false;  // a new file takes a new result
    forget_differing_profiles();  // what an earlier run of this process built is not this run's
    if (!file) return false;
    std::fputs("synclab-verdict\t1\n", file);
    std::fflush(file);
    return true;
}

void seed(std::uint64_t s) { line("seed\t" + std::to_string(s)); }
void schedule(std::uint64_t s) { line("schedule\t" + std::to_string(s)); }

void variant(const std::string &name, VariantState state, const std::string &detail) {
    line("variant\t" + one_field(name) + "\t" + wire_name(state) + "\t" + one_field(detail));
}

void finding(const std::string &variant, FindingKind kind, const std::string &where,
             const std::string &message) {
    line("finding\t" + one_field(variant) + "\t" + wire_name(kind) + "\t" +
         (where.empty() ? "-" : one_field(where)) + "\t" + one_field(message));
}

void result(int exit_code, ResultKind kind, const std::string &where, const std::string &message) {
    for (const auto &p : differing_profiles()) line("profile-differs\t" + p);
    line("result\t" + std::to_string(exit_code) + "\t" + wire_name(kind) + "\t" +
         (where.empty() ? "-" : one_field(where)) + "\t" + one_field(message));
    std::lock_guard<std::mutex> lock(m);
    finished = true;  // the first result stands: a watchdog's timeout is not overwritten
}

}  // namespace verdict

VerdictRecord parse_verdict(const std::string &text) {
    VerdictRecord r;
    std::istringstream in(text);
    std::string l;
    auto fields = [](const std::string &s) {
        std::vector<std::string> f(1);
        for (char c : s) {
            if (c == '\t') f.emplace_back();
            else f.back() += c;
        }
        return f;
    };
    if (!std::getline(in, l) || fields(l) != std::vector<std::string>{"synclab-verdict", "1"})
        return r;
    r.version = 1;
    while (std::getline(in, l)) {
        const auto f = fields(l);
        if (f[0] == "seed" && f.size() == 2) r.seed = f[1];
        else if (f[0] == "schedule" && f.size() == 2 && !f[1].empty() && f[1].size() < 20 &&
                 f[1].find_first_not_of("0123456789") == std::string::npos)
            r.schedule = f[1];
        else if (f[0] == "profile-differs" && f.size() == 2 && !r.finished)
            r.profiles_differ.push_back(f[1]);
        else if (f[0] == "variant" && f.size() == 4) r.variants.push_back({f[1], variant_state(f[2]), f[3]});
        else if (f[0] == "finding" && f.size() == 5 && !r.finished)
            r.findings.push_back({f[1], finding_kind(f[2]), f[3] == "-" ? "" : f[3], f[4]});
        else if (f[0] == "result" && f.size() == 5 && !r.finished) {
            r.finished = true;
            try {
                r.exit_code = std::stoi(f[1]);
            } catch (...) {
                r.exit_code = -1;
            }
            r.kind = result_kind(f[2]);
            r.where = f[3] == "-" ? "" : f[3];
            r.message = f[4];
        }
    }
    return r;
}

}  // namespace synclab
