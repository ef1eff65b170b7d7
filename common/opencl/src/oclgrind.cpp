#include "synclab/oclgrind.hpp"
#include "synclab/environment.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

// The build says where it put hbcheck's plugin; a build without CMake (Makefile.lecture) has none.
#ifndef SYNCLAB_HBCHECK_PLUGIN
#define SYNCLAB_HBCHECK_PLUGIN ""
#endif

namespace synclab {

namespace {

std::string classify(const std::string &headline) {
    if (headline.find("unordered race") != std::string::npos) return "memory-model";
    if (headline.rfind("Deadlock:", 0) == 0) return "deadlock";
    if (headline.find("data race") != std::string::npos) return "data-race";
    if (headline.find("divergence") != std::string::npos) return "barrier-divergence";
    if (headline.rfind("Invalid read", 0) == 0 || headline.rfind("Invalid write", 0) == 0)
        return "out-of-bounds";
    if (headline.find("ninitiali") != std::string::npos) return "uninitialized";
    return "other";
}

std::string trim(std::string s) {
    const auto b = s.find_first_not_of(" \t\r");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

std::vector<OclgrindFinding> parse_oclgrind_log(const std::string &log) {
    static const std::regex at_line(R"(^At line (\d+)(?: \(column \d+\))? of (.*):$)");
    static const std::regex entity(
        R"(^(First|Second) entity:\s+Global\((\d+),(\d+),(\d+)\)(?:.*Group\(((\d+),\d+,\d+)\))?)");
    static const std::regex only(R"(^Only (\d+) out of (\d+) work-items)");
    // The notices, and each worker's stop after hbcheck's deadlock report (told once, above).
    static const std::regex notice(
        R"(^(Oclgrind: |\d+ (errors?|warnings?) generated|OCLGRIND FATAL ERROR \(hbcheck|hbcheck: the launch stopped))");
    std::vector<OclgrindFinding> out;
    std::istringstream in(log);
    std::string raw;
    OclgrindFinding cur;
    bool open = false;  // cur holds a headline
    OclgrindFinding::Entity *ent = nullptr;
    auto close = [&] {
        if (open && !cur.kernel.empty()) out.push_back(cur);  // no kernel: no report
        open = false;
        ent = nullptr;
    };
    while (std::getline(in, raw)) {
        if (!raw.empty() && raw.back() == '\r') raw.pop_back();
        const bool indented = !raw.empty() && (raw[0] == '\t' || raw[0] == ' ');
        const std::string line = trim(raw);
        if (line.empty()) continue;
        if (!indented) {  // a report starts with an unindented line
            close();
            if (std::regex_search(line, notice)) continue;
            cur = OclgrindFinding{};
            cur.headline = line;
            cur.kind = classify(line);
            open = true;
            continue;
        }
        if (!open) continue;
        std::smatch m;
        if (line.rfind("Kernel:", 0) == 0) {
            cur.kernel = trim(line.substr(7));
        } else if (std::regex_search(line, m, entity)) {
            cur.entities.push_back({std::stoi(m[2]), m[6].matched ? std::stoi(m[6]) : 0,
                                    m[5].matched ? std::string(m[5]) : "", "", 0});
            ent = &cur.entities.back();
        } else if (line.rfind("Fix:", 0) == 0) {
            cur.fix = trim(line.substr(4));
        } else if (std::regex_search(line, m, only)) {
            cur.reached = std::stoi(m[1]);
            cur.group_size = std::stoi(m[2]);
        } else if (std::regex_match(line, m, at_line)) {
            const int n = std::stoi(m[1]);
            if (cur.file.empty()) cur.file = m[2];
            if (!cur.line) cur.line = n;
            cur.lines.push_back(n);
            if (ent && !ent->line) ent->line = n;
        } else if (ent && ent->access.empty()) {
            // The LLVM instruction of the access: a load, a store or an atomic.
            if (line.find("store ") != std::string::npos) ent->access = "writes";
            else if (line.find("= load ") != std::string::npos) ent->access = "reads";
            else if (line.find("atomic") != std::string::npos) ent->access = "updates";
        }
    }
    close();
    return out;
}

// The source with comments blanked (line breaks kept), so that words in them are not code.
static std::string without_comments(const std::string &src) {
    std::string out = src;
    for (std::size_t i = 0; i + 1 < out.size(); ++i) {
        if (out[i] == '/' && out[i + 1] == '/') {
            for (; i < out.size() && out[i] != '\n'; ++i) out[i] = ' ';
        } else if (out[i] == '/' && out[i + 1] == '*') {
            std::size_t j = i;
            for (; j < out.size() && !(out[j] == '*' && j + 1 < out.size() && out[j + 1] == '/'); ++j)
                if (out[j] != '\n') out[j] = ' ';
            for (std::size_t k = j; k < std::min(j + 2, out.size()); ++k) out[k] = ' ';
            i = j + 1;
        }
    }
    return out;
}

// A data race within a group between lines lo <= hi of `kernel`: the line of the first barrier
// between them (or, on one line, the next one after it: a loop's closing barrier) when its flags
// name only the other memory; 0 otherwise.
static int wrong_fence_barrier(const std::string &source, const std::string &kernel, int lo,
                               int hi, bool local) {
    std::istringstream in(without_comments(source));
    const std::regex start("(__)?kernel\\s+void\\s+" + kernel + "\\b");
    static const std::regex any_kernel(R"((__)?kernel\s+void\s+\w+)");
    static const std::regex call(R"(\bbarrier\s*\(([^)]*)\))");
    const char *needed = local ? "CLK_LOCAL_MEM_FENCE" : "CLK_GLOBAL_MEM_FENCE";
    const char *other = local ? "CLK_GLOBAL_MEM_FENCE" : "CLK_LOCAL_MEM_FENCE";
    bool inside = false;
    int n = 0;
    for (std::string l; std::getline(in, l);) {
        ++n;
        if (std::regex_search(l, any_kernel)) inside = std::regex_search(l, start);
        std::smatch m;
        if (!inside || n <= lo || n == hi || !std::regex_search(l, m, call)) continue;
        if (lo < hi && n > hi) return 0;  // nothing between them
        const std::string flags = m[1];
        return flags.find(needed) == std::string::npos && flags.find(other) != std::string::npos
                   ? n
                   : 0;
    }
    return 0;
}

void OclgrindFinding::see_source(const std::string &source) {
    if (kind == "data-race" && entities.size() == 2 && entities[0].line && entities[1].line &&
        entities[0].group_id == entities[1].group_id && !kernel.empty()) {
        const bool local = headline.find("local memory") != std::string::npos;
        if (local || headline.find("global memory") != std::string::npos)
            barrier_line = wrong_fence_barrier(source, kernel,
                                               std::min(entities[0].line, entities[1].line),
                                               std::max(entities[0].line, entities[1].line), local);
        return;
    }
    if (kind != "barrier-divergence" || !line || kernel.empty()) return;
    std::istringstream in(without_comments(source));
    const std::regex start("(__)?kernel\\s+void\\s+" + kernel + "\\b");
    static const std::regex ret(R"(\breturn\b)");
    int n = 0, kernel_line = 0, found = 0;
    for (std::string l; std::getline(in, l) && ++n < line;) {
        if (std::regex_search(l, start)) {
            kernel_line = n;
            found = 0;  // a return of an earlier kernel is not this one's
        }
        if (kernel_line && std::regex_search(l, ret)) found = n;  // the last before the barrier
    }
    return_line = found;
}

namespace {

// A data race's sentence: the reader first (the line the student looks at), and the fix.
void tell_data_race(const OclgrindFinding &f, std::ostream &s, const std::string &in,
                    const std::string &where, bool local) {
    const char *space = local ? "local"
                        : f.headline.find("global memory") != std::string::npos ? "global"
                                                                              : "shared";
    const char *fence = local ? "CLK_LOCAL_MEM_FENCE" : "CLK_GLOBAL_MEM_FENCE";
    s << "data race" << in << ": ";
    if (f.entities.size() == 2 && f.entities[0].line && f.entities[1].line) {
        // Name the reader first: that is the line the student looks at.
        const OclgrindFinding::Entity *r = &f.entities[1], *w = &f.entities[0];
        if (r->access != "reads" && w->access == "reads") std::swap(r, w);
        if (r->access == "writes" && w->access == "writes" && r->line == w->line) {
            s << "work-items " << r->global_id << " and " << w->global_id << " both write "
              << space << " memory at " << f.file << ":" << r->line
              << ", the same place, with nothing ordering them";
        } else {
            s << "work-item " << r->global_id << " " << (r->access.empty() ? "uses" : r->access)
              << " " << space << " memory at " << f.file << ":" << r->line << " that work-item "
              << w->global_id << " " << (w->access.empty() ? "uses" : w->access)
              << " at line " << w->line;
            if ((r->access == "updates") != (w->access == "updates"))
                // One side is an atomic: a barrier would not make the plain access see its
                // result in order; the plain one must be atomic too.
                s << ": one of them is an atomic, the other a plain access; make the plain "
                     "one atomic too (a read: atomic_add(p, 0) or atomic_load; better, use the "
                     "value the atomic returns)";
            else if (r->group != w->group)
                s << ", from another work-group: no barrier orders work-groups, so let each "
                     "group use its own place (index it by get_group_id(0))";
            else if (f.barrier_line)
                s << ", and the barrier between them (line " << f.barrier_line
                  << ") fences only " << (local ? "global" : "local") << " memory: " << space
                  << " memory needs barrier(" << fence << ") there";
            else
                s << ", with no barrier between them: put barrier(" << fence
                  << ") between the two, where every work-item of the group reaches it";
        }
    } else {
        s << space << " memory accessed by two work-items at " << where
          << " with no barrier between them: add a barrier between the write and the read";
    }
}

}  // namespace

std::string OclgrindFinding::friendly() const {
    const std::string where = file.empty() ? std::string("an unknown line")
                                           : file + ":" + std::to_string(line);
    const std::string in = kernel.empty() ? "" : " in kernel " + kernel;
    const bool local = headline.find("local memory") != std::string::npos;
    std::ostringstream s;
    if (kind == "data-race") {
        tell_data_race(*this, s, in, where, local);
    } else if (kind == "memory-model" && entities.size() == 2) {
        // The reader first; a line the compiler merged away (0) is left out.
        const Entity *r = &entities[1], *w = &entities[0];
        if (r->access != "reads" && w->access == "reads") std::swap(r, w);
        s << "memory-model race" << in << ": "
          << (r->line ? file + ":" + std::to_string(r->line) : std::string("a line")) << " "
          << (r->access.empty() ? "uses" : r->access) << " (work-item " << r->global_id
          << ", group " << r->group << ") what "
          << (w->line ? "line " + std::to_string(w->line) : std::string("a line")) << " "
          << (w->access.empty() ? "uses" : w->access) << " (work-item " << w->global_id
          << ", group " << w->group << "), with no fence and atomic between them";
        if (!fix.empty()) s << ": " << fix;
    } else if (kind == "deadlock") {
        std::vector<int> at = lines;
        std::sort(at.begin(), at.end());
        at.erase(std::unique(at.begin(), at.end()), at.end());
        std::string waits;
        for (int l : at) waits += (waits.empty() ? file + ":" : ", ") + std::to_string(l);
        const auto open = headline.find("(schedule");
        s << "deadlock" << in << ": every work-group that runs waits" << (waits.empty() ? "" : " (at " + waits + ")")
          << " for a word that no running group changes";
        if (open != std::string::npos) s << " " << headline.substr(open);
        if (!fix.empty()) s << ": " << fix;
    } else if (kind == "barrier-divergence" && return_line) {
        s << "barrier divergence" << in << ": work-items that return at " << file << ":"
          << return_line << " never reach the barrier at line " << line;
        if (group_size) s << " (only " << reached << " of " << group_size << " reach it)";
        s << ": do not return before a barrier; skip the work with an if instead (e.g. if (id < "
             "stride) { ... }), so every work-item of the group reaches every barrier";
    } else if (kind == "barrier-divergence") {
        s << "barrier divergence" << in << " at " << where;
        if (group_size) s << ": only " << reached << " of " << group_size << " work-items reach it";
        s << ": move the barrier out of the if (or loop) so every work-item of the group "
             "reaches it";
    } else if (kind == "out-of-bounds") {
        s << "out-of-bounds access" << in << " at " << where
          << ": check the index against the buffer's size (" << headline << ")";
    } else if (kind == "uninitialized" && local) {
        s << "uninitialized value" << in << " at " << where
          << ": what is stored to local memory there was never written, most often because it "
             "was read from local memory before another work-item wrote it: put "
             "barrier(CLK_LOCAL_MEM_FENCE) between the writes and the reads";
    } else if (kind == "uninitialized") {
        s << "uninitialized value" << in << " at " << where << ": write it before reading it";
    } else {
        s << headline << in << (file.empty() ? "" : " at " + where);
    }
    return s.str();
}

std::string OclgrindFinding::message() const {
    std::string s = friendly();
    if (kind == "data-race" && headline.rfind("Write-write", 0) == 0)
        s += " (when every work-item writes the same place, let one of them write it, e.g. "
             "if (id == 0))";
    if (count > 1) s += " [" + std::to_string(count) + " reports]";
    return s;
}

std::string OclgrindFinding::where() const {
    if (file.empty() || !line) return "";
    int at = return_line ? return_line : line;
    if ((kind == "data-race" || kind == "memory-model") && entities.size() == 2 &&
        entities[0].line && entities[1].line)
        at = entities[1].access != "reads" && entities[0].access == "reads" ? entities[0].line
                                                                             : entities[1].line;
    return file + ":" + std::to_string(at);
}

int oclgrind_priority(const std::string &kind) {
    for (int i = 0; i < kOclgrindNotFailing; ++i)
        if (kind == kOclgrindFailingKinds[i]) return i;
    return kOclgrindNotFailing;
}

int OclgrindFinding::priority() const { return oclgrind_priority(kind); }

bool OclgrindFinding::between_groups() const {
    return kind == "data-race" && entities.size() == 2 && !entities[0].group_id.empty() &&
           !entities[1].group_id.empty() && entities[0].group_id != entities[1].group_id;
}

bool OclgrindFinding::fix_is_group_barrier() const { return fix.rfind("a barrier(", 0) == 0; }

std::vector<int> OclgrindFinding::named_lines() const {
    static const std::regex named(R"(\bline (\d+))");
    std::vector<int> out = lines;
    for (std::sregex_iterator m(fix.begin(), fix.end(), named), end; m != end; ++m)
        out.push_back(std::stoi((*m)[1]));
    return out;
}

std::vector<std::pair<int, int>> student_parts(const std::string &source) {
    std::vector<std::pair<int, int>> parts;
    std::istringstream in(source);
    int n = 0, open = 0;
    for (std::string l; std::getline(in, l);) {
        ++n;
        if (l.find("---- end of your code ----") != std::string::npos) {
            if (open) parts.emplace_back(open, n);
            open = 0;
        } else if (l.find("---- your code ----") != std::string::npos) {
            open = n;
        }
    }
    return parts;
}

void order_findings(std::vector<OclgrindFinding> &found, const std::string &source,
                    const std::string &file) {
    const auto parts = student_parts(source);
    auto given_only = [&](const OclgrindFinding &f) {
        if (parts.empty() || f.file != file) return false;
        for (int l : f.named_lines())
            for (const auto &[first, last] : parts)
                if (l >= first && l <= last) return false;
        return !f.named_lines().empty();
    };
    auto rank = [&](const OclgrindFinding &f) {
        if (f.kind == "memory-model" && f.fix_is_group_barrier())
            for (const auto &o : found)
                if (o.kind == "data-race" && !o.between_groups() && o.kernel == f.kernel)
                    return -1;  // before the races it lets happen
        return f.priority();
    };
    std::vector<std::pair<std::pair<bool, int>, std::size_t>> keys;
    for (std::size_t i = 0; i < found.size(); ++i)
        keys.push_back({{given_only(found[i]), rank(found[i])}, i});
    std::stable_sort(keys.begin(), keys.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<OclgrindFinding> ordered;
    for (const auto &k : keys) ordered.push_back(found[k.second]);
    found = std::move(ordered);
}

std::string hbcheck_plugin() {
    std::error_code ec;
    if (const char *given = std::getenv(env::kHbcheck))  // "off" (or no such file): none
        return *given && std::filesystem::is_regular_file(given, ec) ? given : "";
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const auto beside = exe.parent_path().parent_path() / "lib" / "libsynclab_hbcheck.so";
        if (std::filesystem::is_regular_file(beside, ec)) return beside.string();
    }
    const std::string built = SYNCLAB_HBCHECK_PLUGIN;
    if (!built.empty() && std::filesystem::is_regular_file(built, ec)) return built;
    return "";
}

bool OclgrindFinding::fails() const { return priority() < kOclgrindNotFailing; }

bool hbcheck_ran(const std::string &log) { return log.find("\nhbcheck: on") != std::string::npos; }

std::vector<OclgrindFinding> oclgrind_findings(const std::string &log) {
    auto all = distinct(parse_oclgrind_log(log));
    if (hbcheck_ran(log))
        std::erase_if(all, [](const OclgrindFinding &f) { return f.between_groups(); });
    return all;
}

int oclgrind_suppressed_after(const std::string &log) {
    static const std::regex cap(R"(Oclgrind: (\d+) errors generated - suppressing)");
    std::smatch m;
    return std::regex_search(log, m, cap) ? std::stoi(m[1]) : 0;
}

std::vector<OclgrindFinding> distinct(const std::vector<OclgrindFinding> &all) {
    std::vector<OclgrindFinding> out;
    for (const auto &f : all) {
        bool seen = false;
        for (auto &o : out)
            if (o.kind == f.kind && o.kernel == f.kernel && o.lines == f.lines) {
                ++o.count;
                seen = true;
                break;
            }
        if (!seen) out.push_back(f);
    }
    return out;
}

}  // namespace synclab
