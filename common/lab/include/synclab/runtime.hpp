// For every lab's main() (through lab.hpp), synclab-grade's main() and the tests: the lab's
// process runtime. run_lab runs a lab's body as one run; guarded_main turns every way out of a
// program into an exit code.
#pragma once
#include <functional>

namespace synclab {

class Lab;
struct Declaration;
struct Options;

// The run's --timeout in seconds: as given, else kSpinTimeout in a lab whose work-groups wait for
// one another (a lock or barrier that never lets go shows within a minute; every run of those
// labs but a stress run ends in seconds), else Options' own default.
double run_timeout(const Declaration &decl, const Options &opt);

// Parses the shared options, handles --help, --describe and --list-devices, picks the device,
// runs body, and turns every exception into one line, an exit code and a verdict record.
// The grader runs several lines in one process through synclab-labs (protocol.hpp), which calls
// this once a line.
int run_lab(int argc, char **argv, const Declaration &decl, const std::function<int(Lab &)> &body);

// Runs body and maps every exception to a one-line message on stderr, an exit code and a
// verdict record (--verdict).
int guarded_main(const char *program, const std::function<int()> &body);

}  // namespace synclab
