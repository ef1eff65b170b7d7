// For the lab scaffolding and the grader: a lab's verdict in machine-readable form (--verdict
// FILE), so that no grade depends on the wording of a message. Version 1, one record per line,
// fields separated by tabs (docs/contract.md):
//   synclab-verdict 1
//   seed <n>
//   schedule <n>           --stress: the seed of the schedule that failed
//   variant <name> <verified|wrong|skipped> <detail>
//   finding <variant> <kind> <file:line or -> <one-line message>   (Oclgrind's, on Oclgrind)
//   profile-differs <profile>  a build's text differs under that profile (program_text.hpp)
//   result <exit code> <kind> <file:line or -> <one-line message>
// result kind: verified, wrong, compile-error, refused (reads a file not handed in), usage, unsupported, crash, timeout, error.
// finding kind: data-race, memory-model (hbcheck), barrier-divergence, out-of-bounds, uninitialized;
// variant "-" when no variant ran the kernel; "not-checked" (never failing) names a check that
// could not run (hbcheck not built). Every finding comes before the result.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace synclab {

struct VariantVerdict {
    std::string variant;
    std::string state;   // "verified", "wrong" or "skipped"
    std::string detail;  // one line
};

struct FindingRecord {
    std::string variant, kind;
    std::string where;    // "file:line", "" when none
    std::string message;  // the whole line a student is told
};

struct VerdictRecord {
    int version = 0;
    std::string seed;
    std::string schedule;  // --stress: the failing schedule's seed ("" when none failed)
    std::vector<VariantVerdict> variants;
    std::vector<FindingRecord> findings;
    std::vector<std::string> profiles_differ;  // profile-differs: judge the lab under each too
    bool finished = false;  // a result line was read
    int exit_code = -1;
    std::string kind, where, message;
};

// The writer, one per process: every call is a no-op until open() succeeds.
namespace verdict {
// Opens (truncates) FILE and writes the header; false when it cannot be written.
bool open(const std::string &path);
void seed(std::uint64_t seed);
void schedule(std::uint64_t seed);
void variant(const std::string &name, const std::string &state, const std::string &detail);
void finding(const std::string &variant, const std::string &kind, const std::string &where,
             const std::string &message);
// The last record. Async-signal-safe enough for the watchdog: one write of a prepared line.
void result(int exit_code, const std::string &kind, const std::string &where,
            const std::string &message);
}  // namespace verdict

// Reads a verdict file's text; a record with version 0 when it is not one.
VerdictRecord parse_verdict(const std::string &text);

// Tabs and line breaks become spaces: every field stays one field on one line.
std::string one_field(const std::string &s);

}  // namespace synclab
