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
    if (d.dir.size() < 4 || !std::isdigit(static_cast<unsigned char>(d.dir[0])) ||
        !std::isdigit(static_cast<unsigned char>(d.dir[1])) || d.dir[2] != '_')
        throw bad("no lab folder name of the form NN_topic");
    return d;
}

}  // namespace synclab
