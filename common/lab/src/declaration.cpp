#include "synclab/declaration.hpp"

#include <algorithm>

#include <ostream>
#include <sstream>
#include <stdexcept>

#include "synclab/verdict.hpp"

namespace synclab {

const Variant *Declaration::find(const std::string &variant) const {
    for (const auto &v : variants)
        if (v.name == variant) return &v;
    return nullptr;
}

int Declaration::kernel_width(std::size_t at_least) const {
    for (const auto &v : variants)
        for (const auto &k : v.kernels) at_least = std::max(at_least, k.size());
    return static_cast<int>(at_least);
}

int Declaration::variant_width(std::size_t at_least) const {
    for (const auto &v : variants) at_least = std::max(at_least, v.name.size());
    return static_cast<int>(at_least);
}

static std::string joined(const std::vector<std::string> &v, char sep) {
    std::string out;
    for (const auto &s : v) out += (out.empty() ? "" : std::string(1, sep)) + one_field(s);
    return out;
}

void describe(std::ostream &os, const Declaration &d) {
    os << "synclab-lab\t" << kContractVersion << "\n";
    os << "dir\t" << one_field(d.dir) << "\n";
    os << "summary\t" << one_field(d.summary) << "\n";
    os << "description\t" << one_field(d.description) << "\n";
    for (const auto &v : d.variants) {
        std::vector<std::string> flags;
        if (v.todo) flags.push_back("todo");
        if (v.demonstration) flags.push_back("demonstration");
        if (!v.graded) flags.push_back("ungraded");
        os << "variant\t" << one_field(v.name) << "\t" << joined(v.kernels, ',') << "\t"
           << (flags.empty() ? "-" : joined(flags, ',')) << "\n";
    }
    for (const auto &run : d.grading) os << "grade\t" << joined(run, '\t') << "\n";
    for (const auto &check : d.race_checks) os << "race\t" << joined(check, '\t') << "\n";
    for (const auto &check : d.drawn_checks) os << "drawn\t" << joined(check, '\t') << "\n";
    for (const auto &run : d.drawn_grading) os << "drawn-grade\t" << joined(run, '\t') << "\n";
    for (const auto &w : d.draws)
        os << "draw\t" << one_field(w.name) << "\t" << w.low << "\t" << w.high << "\n";
    if (!d.race_check_skipped.empty())
        os << "race-skipped\t" << one_field(d.race_check_skipped) << "\n";
    for (const auto &c : d.oclgrind_off) os << "oclgrind-off\t" << one_field(c) << "\n";
    if (d.build_per_size) os << "build-per-size\n";
    if (d.oclgrind_groups) os << "oclgrind-groups\t" << d.oclgrind_groups << "\n";
    if (d.stress_schedules) {
        os << "stress\t" << d.stress_schedules;
        for (const auto &a : d.stress_args) os << "\t" << one_field(a);
        os << "\n";
    }
    if (!d.stress_warm_up.empty()) {
        os << "stress-warm-up";
        for (const auto &a : d.stress_warm_up) os << "\t" << one_field(a);
        os << "\n";
    }
    if (d.points != 1) os << "points\t" << d.points << "\n";
}

// A whole number of at most 9 digits, or false.
static bool count_field(const std::string &s, unsigned &out) {
    if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), ::isdigit)) return false;
    out = static_cast<unsigned>(std::stoul(s));
    return true;
}

static std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> f(1);
    for (char c : s) {
        if (c == sep) f.emplace_back();
        else f.back() += c;
    }
    return f;
}

Declaration parse_description(const std::string &text) {
    Declaration d;
    std::istringstream in(text);
    std::string line;
    int number = 0;
    auto bad = [&](const std::string &why) {
        return std::runtime_error("line " + std::to_string(number) + " of the description: " + why);
    };
    while (std::getline(in, line)) {
        ++number;
        const auto f = split(line, '\t');
        const std::vector<std::string> rest(f.begin() + 1, f.end());
        if (number == 1) {
            if (f.size() != 2 || f[0] != "synclab-lab")
                throw bad("not a synclab lab description");
            if (f[1] != std::to_string(kContractVersion))
                throw bad("contract version " + f[1] + ", this build reads " +
                          std::to_string(kContractVersion));
        } else if (f[0] == "dir" && f.size() == 2) {
            d.dir = f[1];
        } else if (f[0] == "summary" && f.size() == 2) {
            d.summary = f[1];
        } else if (f[0] == "description" && f.size() == 2) {
            d.description = f[1];
        } else if (f[0] == "variant" && f.size() == 4) {
            Variant v;
            v.name = f[1];
            v.kernels = split(f[2], ',');
            for (const auto &flag : split(f[3], ',')) {
                if (flag == "todo") v.todo = true;
                else if (flag == "demonstration") v.demonstration = true;
                else if (flag == "ungraded") v.graded = false;
                else if (flag != "-") throw bad("unknown variant flag '" + flag + "'");
            }
            d.variants.push_back(v);
        } else if (f[0] == "grade") {
            d.grading.push_back(rest);
        } else if (f[0] == "race") {
            d.race_checks.push_back(rest);
        } else if (f[0] == "drawn") {
            d.drawn_checks.push_back(rest);
        } else if (f[0] == "drawn-grade") {
            d.drawn_grading.push_back(rest);
        } else if (f[0] == "draw" && f.size() == 4) {
            Draw w{f[1]};
            if (f[1].empty() || !count_field(f[2], w.low) || !count_field(f[3], w.high) || w.low > w.high)
                throw bad("a draw is NAME LOW HIGH, whole numbers with LOW <= HIGH");
            d.draws.push_back(w);
        } else if (f[0] == "race-skipped" && f.size() == 2) {
            d.race_check_skipped = f[1];
        } else if (f[0] == "oclgrind-off" && f.size() == 2) {
            d.oclgrind_off.push_back(f[1]);
        } else if (f[0] == "build-per-size" && f.size() == 1) {
            d.build_per_size = true;
        } else if (f[0] == "oclgrind-groups" && f.size() == 2 && !f[1].empty() &&
                   f[1].size() < 4 && std::all_of(f[1].begin(), f[1].end(), ::isdigit)) {
            d.oclgrind_groups = static_cast<unsigned>(std::stoul(f[1]));
        } else if (f[0] == "stress" && f.size() >= 2 && !f[1].empty() && f[1].size() < 5 &&
                   std::all_of(f[1].begin(), f[1].end(), ::isdigit)) {
            d.stress_schedules = static_cast<unsigned>(std::stoul(f[1]));
            d.stress_args.assign(f.begin() + 2, f.end());
        } else if (f[0] == "stress-warm-up") {
            d.stress_warm_up = rest;
        } else if (f[0] == "points" && f.size() == 2 && !f[1].empty() && f[1].size() < 5 &&
                   std::all_of(f[1].begin(), f[1].end(), ::isdigit)) {
            d.points = static_cast<unsigned>(std::stoul(f[1]));
        } else if (!line.empty()) {
            throw bad("unknown record '" + f[0] + "'");
        }
    }
    if (number == 0) throw bad("empty");
    if (const auto missing = undeclared_draws(d); !missing.empty())
        throw bad("'" + missing.front() + "' is in an argument, and no draw declares it");
    if (!d.drawn_grading.empty() && d.drawn_grading.size() != d.drawn_checks.size())
        throw bad("drawn-grade lines pair with drawn lines: give as many of each");
    if (d.dir.size() < 4 || !std::isdigit(static_cast<unsigned char>(d.dir[0])) ||
        !std::isdigit(static_cast<unsigned char>(d.dir[1])) || d.dir[2] != '_')
        throw bad("no lab folder name of the form NN_topic");
    return d;
}

namespace {

// Every argument list a draw may reach.
template <class D, class F> void each_args(D &d, F f) {
    for (auto *sets : {&d.grading, &d.race_checks, &d.drawn_checks, &d.drawn_grading})
        for (auto &args : *sets) f(args);
    f(d.stress_args);
}

}  // namespace

Declaration with_draws(const Declaration &d, const std::vector<unsigned> &values) {
    Declaration out = d;
    each_args(out, [&](Args &args) {
        for (auto &a : args)
            for (std::size_t i = 0; i < d.draws.size() && i < values.size(); ++i) {
                const std::string token = "{" + d.draws[i].name + "}";
                for (std::size_t at; (at = a.find(token)) != std::string::npos;)
                    a.replace(at, token.size(), std::to_string(values[i]));
            }
    });
    out.draws.clear();
    return out;
}

std::vector<std::string> undeclared_draws(const Declaration &d) {
    std::vector<std::string> out;
    each_args(d, [&](const Args &args) {
        for (const auto &a : args)
            for (std::size_t open = a.find('{'); open != std::string::npos; open = a.find('{', open + 1)) {
                const std::size_t close = a.find('}', open);
                if (close == std::string::npos) break;
                const std::string name = a.substr(open + 1, close - open - 1);
                const bool declared = std::any_of(d.draws.begin(), d.draws.end(),
                                                  [&](const Draw &w) { return w.name == name; });
                if (!declared && std::find(out.begin(), out.end(), "{" + name + "}") == out.end())
                    out.push_back("{" + name + "}");
            }
    });
    return out;
}

}  // namespace synclab
