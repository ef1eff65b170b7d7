#include "synclab/verdict.hpp"

#include <cstdio>
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

void variant(const std::string &name, const std::string &state, const std::string &detail) {
    line("variant\t" + one_field(name) + "\t" + state + "\t" + one_field(detail));
}

void finding(const std::string &variant, const std::string &kind, const std::string &where,
             const std::string &message) {
    line("finding\t" + one_field(variant) + "\t" + one_field(kind) + "\t" +
         (where.empty() ? "-" : one_field(where)) + "\t" + one_field(message));
}

void result(int exit_code, const std::string &kind, const std::string &where,
            const std::string &message) {
    for (const auto &p : differing_profiles()) line("profile-differs\t" + p);
    line("result\t" + std::to_string(exit_code) + "\t" + kind + "\t" +
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
        else if (f[0] == "variant" && f.size() == 4) r.variants.push_back({f[1], f[2], f[3]});
        else if (f[0] == "finding" && f.size() == 5 && !r.finished)
            r.findings.push_back({f[1], f[2], f[3] == "-" ? "" : f[3], f[4]});
        else if (f[0] == "result" && f.size() == 5 && !r.finished) {
            r.finished = true;
            try {
                r.exit_code = std::stoi(f[1]);
            } catch (...) {
                r.exit_code = -1;
            }
            r.kind = f[2];
            r.where = f[3] == "-" ? "" : f[3];
            r.message = f[4];
        }
    }
    return r;
}

}  // namespace synclab
