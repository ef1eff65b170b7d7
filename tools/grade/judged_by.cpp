// What judged a row (judged_by.hpp): its text, and how two of them compare.
#include "judged_by.hpp"

#include <cstdlib>
#include <sstream>

#include "submission_files.hpp"  // sha256_hex
#include "synclab/oclgrind.hpp"  // hbcheck_plugin

#ifndef SYNCLAB_GRADER_VERSION
#define SYNCLAB_GRADER_VERSION "unknown"
#endif

namespace grade {

namespace {

const char *yes(bool b) { return b ? "yes" : "no"; }

// The fields --resume and --merge compare, in the text's order; "grader", "shard" and "class"
// follow them.
const char *const kChecks[] = {"runs", "device", "oclgrind", "hbcheck", "schedules", "stress", "draw"};

// Whether a row's `had` is at least `now` for the check `name`.
bool at_least(const std::string &name, const std::string &had, const std::string &now) {
    if (had == now) return true;
    if (name == "runs") return had == "all";
    if (name == "oclgrind" || name == "hbcheck") return had == "yes";
    if (name == "schedules") return had == "seeded";
    if (name == "stress") {
        // POCL's schedules run where the seeded ones did not (another check tells that), or as
        // asked (--stress N): covered asks none of them.
        if (now == "off" || now == "none") return true;
        const bool had_run = had.rfind("run:", 0) == 0, now_run = now.rfind("run:", 0) == 0;
        if (now == "covered") return had_run;
        auto count = [](const std::string &v) { return std::strtoul(v.c_str() + 4, nullptr, 10); };
        return had_run && now_run && count(had) >= count(now);
    }
    return false;  // device, draw: another is never as good
}

}  // namespace

Judging judging_of(const Settings &s) {
    Judging j;
    j.quick = s.quick;
    j.race_check = s.race_check;
    j.oclgrind = s.oclgrind_available;
    j.hbcheck = !synclab::hbcheck_plugin().empty();
    j.stress = s.stress;
    j.stress_schedules = s.stress_schedules;
    for (const auto &d : s.devices) j.devices += (j.devices.empty() ? "" : ",") + (d.empty() ? "default" : d);
    j.draw = draw_digest(s.draw_key);
    j.version = grader_version();
    return j;
}

std::string draw_digest(const std::string &key) { return sha256_hex(key).substr(0, 12); }

const char *grader_version() { return SYNCLAB_GRADER_VERSION; }

std::string judged_by(const Recipe &lab, const Judging &j) {
    const synclab::Declaration &d = lab.declaration;
    const bool oclgrind = j.race_check && j.oclgrind && !d.race_checks.empty();
    const bool hbcheck = oclgrind && d.oclgrind_groups && j.hbcheck;
    std::string stress = "none";
    if (d.stress_schedules) {
        if (!j.stress) stress = "off";
        else if (hbcheck && !j.stress_schedules) stress = "covered";  // the seeded schedules' (lab_grading)
        else stress = "run:" + std::to_string(j.stress_schedules ? j.stress_schedules : d.stress_schedules);
    }
    std::string text = std::string("runs=") + (j.quick ? "first" : "all") + ";device=" + j.devices +
                       ";oclgrind=" + yes(oclgrind) + ";hbcheck=" + yes(hbcheck) +
                       ";schedules=" + (hbcheck ? "seeded" : "none") + ";stress=" + stress +
                       ";draw=" + j.draw + ";grader=" + j.version;
    if (j.shard_count)
        text += ";shard=" + std::to_string(j.shard_index) + "/" + std::to_string(j.shard_count) +
                ";class=" + std::to_string(j.class_size);
    return text;
}

std::map<std::string, std::string> judged_fields(const std::string &text) {
    std::map<std::string, std::string> out;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, ';');)
        if (const auto eq = part.find('='); eq != std::string::npos && eq > 0)
            out[part.substr(0, eq)] = part.substr(eq + 1);
    return out;
}

std::string weaker_checks(const std::string &row, const std::string &now) {
    const auto had = judged_fields(row), want = judged_fields(now);
    std::string why;
    for (const char *name : kChecks) {
        const auto h = had.find(name), w = want.find(name);
        if (w == want.end()) continue;
        if (h == had.end()) return "its row does not say what judged it (an older grader)";
        if (at_least(name, h->second, w->second)) continue;
        const std::string what = std::string(name) == "draw" ? "draw key digest" : name;
        why += (why.empty() ? "" : ", ") + what + " " + h->second + " (now " + w->second + ")";
    }
    return why;
}

std::string settings_difference(const std::string &a, const std::string &b) {
    const auto fa = judged_fields(a), fb = judged_fields(b);
    std::string why;
    for (const auto &[name, value] : fa) {
        if (name == "shard" || name == "class") continue;
        const auto other = fb.find(name);
        const std::string theirs = other == fb.end() ? "nothing" : other->second;
        if (theirs != value) why += (why.empty() ? "" : ", ") + name + " " + value + " against " + theirs;
    }
    for (const auto &[name, value] : fb)
        if (name != "shard" && name != "class" && !fa.count(name))
            why += (why.empty() ? "" : ", ") + name + " nothing against " + value;
    return why;
}

void judge_row(Result &r, const Recipe &lab, const Judging &j) {
    r.judged_by = judged_by(lab, j);
    // Oclgrind with hbcheck is the one check of a fence between work-groups here: POCL's runs and
    // its stress schedules run on a CPU whose caches are coherent, where a missing fence is never
    // seen. A lab whose groups meet is judged by it, or not judged.
    if (!r.passed() || !lab.declaration.oclgrind_groups || (j.race_check && j.oclgrind)) return;
    const std::string why =
        j.quick ? "--quick does not check the fences between work-groups; run the full grading"
        : j.race_check
            ? "Oclgrind is not installed, and only its race check sees the fences between work-groups; install it and grade again"
            : "--no-oclgrind does not check the fences between work-groups (POCL's runs cannot see a missing fence on a CPU); grade again with Oclgrind";
    r.grade = Grade::Fail;
    r.kind = Kind::Error;
    r.reason = "not judged: " + why + "; " + r.reason;
}

}  // namespace grade
