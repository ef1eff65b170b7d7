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
// The states and kinds are enums here; their words on the wire are verdict.cpp's alone
// (wire_name, and variant_state, result_kind, finding_kind to read them). Variant "-" in a
// finding when no variant ran the kernel. Every finding comes before the result.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace synclab {

// A variant's state: verified, wrong or skipped (an optional TODO not written, a device that
// cannot run it). Unknown: a word this reader does not know.
enum class VariantState { Verified, Wrong, Skipped, Unknown };
// Why a run ended: verified, wrong, compile-error, refused (reads a file not handed in), usage,
// unsupported (this device cannot run it), crash, timeout, error.
enum class ResultKind { Verified, Wrong, CompileError, Refused, Usage, Unsupported, Crash, Timeout, Error, Unknown };
// An Oclgrind finding, the failing kinds first and the most telling first (a race often shows up
// as an uninitialised read too): data-race, memory-model (hbcheck), deadlock (hbcheck's
// schedule), barrier-divergence, out-of-bounds, uninitialized; then not-checked, which never
// fails: a check that could not run (hbcheck not built).
enum class FindingKind {
    DataRace, MemoryModel, Deadlock, BarrierDivergence, OutOfBounds, Uninitialized, NotChecked, Unknown
};
// Whether a finding of this kind makes a kernel wrong.
constexpr bool fails(FindingKind k) { return k < FindingKind::NotChecked; }

// The word on the wire ("?" for Unknown), and the value a word names (Unknown when none).
const char *wire_name(VariantState s);
const char *wire_name(ResultKind k);
const char *wire_name(FindingKind k);
VariantState variant_state(const std::string &word);
ResultKind result_kind(const std::string &word);
// Also how Oclgrind's log reader (synclab/oclgrind.hpp) names its kinds, "other" being Unknown.
FindingKind finding_kind(const std::string &word);

struct VariantVerdict {
    std::string variant;
    VariantState state = VariantState::Unknown;
    std::string detail;  // one line
};

struct FindingRecord {
    std::string variant;
    FindingKind kind = FindingKind::Unknown;
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
    ResultKind kind = ResultKind::Unknown;
    std::string where, message;
};

// The writer, one per process: every call is a no-op until open() succeeds.
namespace verdict {
// Opens (truncates) FILE and writes the header; false when it cannot be written.
bool open(const std::string &path);
void seed(std::uint64_t seed);
void schedule(std::uint64_t seed);
void variant(const std::string &name, VariantState state, const std::string &detail);
void finding(const std::string &variant, FindingKind kind, const std::string &where,
             const std::string &message);
// The last record. Async-signal-safe enough for the watchdog: one write of a prepared line.
void result(int exit_code, ResultKind kind, const std::string &where, const std::string &message);
}  // namespace verdict

// Reads a verdict file's text; a record with version 0 when it is not one.
VerdictRecord parse_verdict(const std::string &text);

// Tabs and line breaks become spaces: every field stays one field on one line.
std::string one_field(const std::string &s);

}  // namespace synclab
