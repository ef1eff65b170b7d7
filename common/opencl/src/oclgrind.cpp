#include "synclab/oclgrind.hpp"

#include <regex>
#include <sstream>

namespace synclab {

namespace {

std::string classify(const std::string &headline) {
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
    static const std::regex entity(R"(^(First|Second) entity:\s+Global\((\d+),(\d+),(\d+)\))");
    static const std::regex only(R"(^Only (\d+) out of (\d+) work-items)");
    std::vector<OclgrindFinding> out;
    std::istringstream in(log);
    std::string raw;
    OclgrindFinding *cur = nullptr;
    OclgrindFinding::Entity *ent = nullptr;
    while (std::getline(in, raw)) {
        if (!raw.empty() && raw.back() == '\r') raw.pop_back();
        const bool indented = !raw.empty() && (raw[0] == '\t' || raw[0] == ' ');
        const std::string line = trim(raw);
        if (line.empty()) continue;
        if (!indented) {  // a report starts with an unindented line
            OclgrindFinding f;
            f.headline = line;
            f.kind = classify(line);
            out.push_back(f);
            cur = &out.back();
            ent = nullptr;
            continue;
        }
        if (!cur) continue;
        std::smatch m;
        if (line.rfind("Kernel:", 0) == 0) {
            cur->kernel = trim(line.substr(7));
        } else if (std::regex_search(line, m, entity)) {
            cur->entities.push_back({std::stoi(m[2]), "", 0});
            ent = &cur->entities.back();
        } else if (std::regex_search(line, m, only)) {
            cur->reached = std::stoi(m[1]);
            cur->group_size = std::stoi(m[2]);
        } else if (std::regex_match(line, m, at_line)) {
            const int n = std::stoi(m[1]);
            if (cur->file.empty()) cur->file = m[2];
            if (!cur->line) cur->line = n;
            cur->lines.push_back(n);
            if (ent && !ent->line) ent->line = n;
        } else if (ent && ent->access.empty()) {
            // The LLVM instruction of the access: a load, a store or an atomic.
            if (line.find("store ") != std::string::npos) ent->access = "writes";
            else if (line.find("= load ") != std::string::npos) ent->access = "reads";
            else if (line.find("atomic") != std::string::npos) ent->access = "updates";
        }
    }
    return out;
}

std::string OclgrindFinding::friendly() const {
    const std::string where = file.empty() ? std::string("an unknown line")
                                           : file + ":" + std::to_string(line);
    const std::string in = kernel.empty() ? "" : " in kernel " + kernel;
    std::ostringstream s;
    if (kind == "data-race") {
        const char *space = headline.find("local memory") != std::string::npos ? "local"
                            : headline.find("global memory") != std::string::npos ? "global"
                                                                                  : "shared";
        s << "data race" << in << ": ";
        if (entities.size() == 2 && entities[0].line && entities[1].line) {
            // Name the reader first: that is the line the student looks at.
            const Entity *r = &entities[1], *w = &entities[0];
            if (r->access != "reads" && w->access == "reads") std::swap(r, w);
            s << "work-item " << r->global_id << " " << (r->access.empty() ? "uses" : r->access)
              << " " << space << " memory at " << file << ":" << r->line << " that work-item "
              << w->global_id << " " << (w->access.empty() ? "uses" : w->access) << " at line "
              << w->line << ", with no barrier between them: put barrier(CLK_LOCAL_MEM_FENCE) "
              << "between the two, where every work-item of the group reaches it";
        } else {
            s << space << " memory accessed by two work-items at " << where
              << " with no barrier between them: add a barrier between the write and the read";
        }
    } else if (kind == "barrier-divergence") {
        s << "barrier divergence" << in << " at " << where;
        if (group_size) s << ": only " << reached << " of " << group_size << " work-items reach it";
        s << ": move the barrier out of the if (or loop) so every work-item of the group "
             "reaches it";
    } else if (kind == "out-of-bounds") {
        s << "out-of-bounds access" << in << " at " << where
          << ": check the index against the buffer's size (" << headline << ")";
    } else if (kind == "uninitialized") {
        s << "uninitialized value" << in << " at " << where << ": write it before reading it";
    } else {
        s << headline << in << (file.empty() ? "" : " at " + where);
    }
    return s.str();
}

std::string OclgrindFinding::message() const {
    std::string s = friendly();
    if (headline.rfind("Write-write", 0) == 0)
        s += " (when every work-item writes the same place, let one of them write it, e.g. "
             "if (id == 0))";
    if (count > 1) s += " [" + std::to_string(count) + " reports]";
    return s;
}

std::string OclgrindFinding::where() const {
    if (file.empty() || !line) return "";
    int at = line;
    if (kind == "data-race" && entities.size() == 2 && entities[0].line && entities[1].line)
        at = entities[1].access != "reads" && entities[0].access == "reads" ? entities[0].line
                                                                             : entities[1].line;
    return file + ":" + std::to_string(at);
}

int OclgrindFinding::priority() const {
    static const char *order[] = {"data-race", "barrier-divergence", "out-of-bounds",
                                  "uninitialized"};
    for (int i = 0; i < 4; ++i)
        if (kind == order[i]) return i;
    return 4;
}

bool OclgrindFinding::fails() const { return priority() < 4; }

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
