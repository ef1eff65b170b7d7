// For the grader's stages and records: what judged a row, the gradebook's `judged_by` column. A
// compact text, fields `name=value` joined by ';' (docs/grading.md, "What judged a row"):
//   runs=all|first  device=SPEC[,SPEC]  oclgrind=yes|no  hbcheck=yes|no  schedules=seeded|none
//   stress=none|off|covered|run:N  draw=<12 hex of the draw key's SHA-256>  grader=<version>
//   [shard=I/N;class=STUDENTS]
// --resume grades a row again when it was judged by weaker or other checks than the run's; --merge
// refuses shards judged under other settings, and names the shards missing.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "grade.hpp"
#include "labs.hpp"
#include "settings.hpp"

namespace grade {

// What one run judges with: the same for every lab, but for what a lab declares.
struct Judging {
    bool quick = false;          // --quick: one dynamic run a lab, no race check, no stress
    bool race_check = false;     // not --quick, not --no-oclgrind
    bool oclgrind = false;       // Oclgrind found (only asked when race_check)
    bool hbcheck = false;        // hbcheck's plugin found
    bool stress = false;         // not --quick, not --no-stress
    unsigned stress_schedules = 0;  // --stress N (0: each lab's own)
    std::string devices;         // "default", or --device's specs joined by ','
    std::string draw;            // draw_digest(--draw-key)
    std::string version;         // grader_version()
    unsigned shard_index = 0, shard_count = 0;  // --shard I/N (0: the whole class)
    std::size_t class_size = 0;  // students in the class (with --shard)
};

// The settings' part of a Judging (hbcheck looked up as a lab finds it); shard and class unset.
Judging judging_of(const Settings &s);

// The first 12 hex digits of the SHA-256 of `key`: a draw told apart, never the key itself.
std::string draw_digest(const std::string &key);

// The project's version, and the commit CMake was configured at where git could say
// ("0.1+0123abcd4567"), else the version alone.
const char *grader_version();

// The judged_by text of a row of `lab` graded under `j`.
std::string judged_by(const Recipe &lab, const Judging &j);

// Every field of a judged_by text ("": none; a part without '=' is left out).
std::map<std::string, std::string> judged_fields(const std::string &text);

// Why a row judged by `row` is not as good as one judged by `now` (checks weaker, or another
// device or draw key), e.g. "oclgrind no (now yes), hbcheck no (now yes)"; "" when it is. The
// grader's version, the shard and the class are not checks: never a reason.
std::string weaker_checks(const std::string &row, const std::string &now);

// How two shards' settings differ, every field but shard and class, e.g. "runs all against
// first"; "" when they agree.
std::string settings_difference(const std::string &a, const std::string &b);

// Stamps a row graded now with judged_by(lab, j); and a pass of a lab whose groups meet
// (oclgrind-groups: 07 to 10) becomes `error` where its fences between work-groups were not judged
// (--quick, --no-oclgrind): never a pass, what was found kept in the reason.
void judge_row(Result &r, const Recipe &lab, const Judging &j);

}  // namespace grade
