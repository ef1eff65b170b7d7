// synclab-grade's command line: its options, their help, and the checks of their values.
#include "options.hpp"

#include "cores.hpp"

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <set>
#include <thread>

#include <cxxopts.hpp>

#include "synclab/cpus.hpp"
#include "synclab/errors.hpp"
#include "synclab/protocol.hpp"  // kMaxTimeout

using synclab::UsageError;

namespace grade {
namespace {

// Strict numbers: the whole text, in the option's unit, or one line saying what is wrong.
double number_option(const std::string &name, const std::string &text, const std::string &unit,
                     double lo, double hi, const std::string &why_lo) {
    static const std::regex plain(R"([0-9]+(\.[0-9]+)?)");
    if (!std::regex_match(text, plain))
        throw UsageError("--" + name + " '" + text + "' is not a number of " + unit +
                         " (write it like 60 or 2.5, no units or commas)");
    const double v = std::strtod(text.c_str(), nullptr);
    if (v < lo)
        throw UsageError("--" + name + " " + text + " is too small: give at least " +
                         (lo == static_cast<long long>(lo) ? std::to_string(static_cast<long long>(lo))
                                                          : std::to_string(lo)) +
                         " " + unit + " (" + why_lo + ")");
    if (v > hi)
        throw UsageError("--" + name + " " + text + " is too large: give at most " +
                         std::to_string(static_cast<long long>(hi)) + " " + unit);
    return v;
}

const char *kMore = R"help(
Modes:
  synclab-grade --kernels DIR     grade one student: DIR holds the .cl files, named as in
                                  kernels/ (or DIR/kernels/ does)
  synclab-grade --class DIR       grade a class: every sub-folder of DIR is one student, its
                                  .cl files found in any folder below it as the platforms'
                                  entry point finds them (a file named as no lab is noted)

A submission is hostile input. For each lab, its own regular files are copied into a private
folder first: a kernel file (or a student folder) that is a symbolic link, a FIFO or a device,
an empty or oversized kernel file, and an #include of anything but another file handed in
beside it are refused ("refused", with the reason). The lab (beside synclab-grade) then runs as
a child process on that copy, inside bubblewrap when it can start (a read-only system, of /etc
only the OpenCL vendor list and the loader's cache, no network, only the copy writable, and as
nobody when the grader runs as root), always with the --timeout and --memory limits, and never
outliving the grader. Without bubblewrap a class is refused (exit 2) unless --no-sandbox is
given: a student's kernel then runs with the grader's own privileges and can read whatever the
grader can (SYNCLAB_GRADE_SANDBOX=off turns it off for --kernels). Each lab's runs:
  1. dynamic runs on --device (default: the lab's, POCL's CPU), one per argument set its
     declaration lists (several sizes, work-group sizes and exact integer inputs), all in one
     lab process (lab --batch) that stops at the first failure, each with fresh random inputs
     (--seed makes them repeatable) and --timeout: a wrong answer, a compile error
     (file:line), a crash or a hang fails the lab;
  2. the race check: the lab on Oclgrind, which reports data races, barrier divergence,
     out-of-bounds and uninitialized accesses: any of them fails the lab, told in one line
     (what, kernel, file:line, likely fix). Skipped, and said so in every row, when Oclgrind
     is not installed (or with --quick / --no-oclgrind). Labs whose groups meet (07, 08, 09,
     10) also need hbcheck, the fence check between work-groups: where it or Oclgrind is
     missing the grading is refused (exit 2); with --no-hbcheck, --no-oclgrind or --quick
     those labs never pass (error: not judged);
  3. stress schedules, for labs whose work-groups wait for one another (07, 09, 10): the lab
     runs its protocols again, each schedule with delays injected at its atomics and fences
     (--stress N schedules; --no-stress or --quick: none). A wrong answer under one fails the
     lab, named with the schedule's seed and the command that repeats it.
A lab whose file is not in the folder is "missing". Demonstration variants (lab 01's nosync)
are never graded; a variant no device here can run, and a run above the device's largest
work-group, are "not checked (why)" (a lab with no run made is an error, never a pass).

Outputs (never inside a submission). With --class the gradebook and the JUnit reports are
written (default: gradebook.csv and junit/); with --kernels nothing is written unless asked
(--csv, --junit, --gradescope, --prairielearn): a student grading their own checkout finds it
as it was, and every run grades afresh.
  --csv FILE       the gradebook: student,lab,grade,kind,reason,seconds,points,max_points,
                   files_sha256,judged_by (what judged the row: its checks, device, the draw
                   key's digest, the grader's version; a name or reason that a spreadsheet
                   would run as a formula,
                   = + - @ first, gets a ' first); after each student's labs, a row whose lab
                   is "total": the points earned of the most. Each row holds the SHA-256 of
                   the files it graded. It is locked while a grader writes it (a second one is
                   refused), each row is written and synced as soon as it is known, and rows
                   already there are kept: add --resume to grade only the rest, every
                   student whose files changed and every row that is an error or was judged
                   by weaker checks than this run's, --students A,B to grade those again, or
                   --restart to empty it first
  --junit DIR      DIR/<student>.xml, JUnit XML (one testcase per lab), as CI autograders
                   such as GitHub Classroom read; the name is the folder's alone: characters
                   other than A-Z a-z 0-9 . _ - and UTF-8 letters become _, and a name not
                   plain lower-case ASCII gets + and 10 hex digits of its SHA-256
  --gradescope FILE    with --kernels: Gradescope's results.json (score, one test per lab
                   with its reason); written at the start as "not finished", then whole
  --prairielearn FILE  with --kernels: PrairieLearn's external-grader results.json (score
                   0..1, one test per lab)
  --points LIST    each lab's points in those scores and the gradebook, e.g. 09=3,10=2 (default: the lab's
                   declaration, 1 unless it says otherwise); a pass earns them, anything
                   else 0
  stdout           one line per graded lab (on a terminal, a progress line with the time
                   left), then a student x lab table and the reasons
Kinds: pass, missing, refused, compile-error, wrong-answer, crash, timeout, data-race,
barrier-divergence, out-of-bounds, uninitialized, error.

--budget S ends the grading after S seconds: the labs then running are named as stopped (in
a platform's results too), those not begun as not graded, and every finished lab keeps its
grade (one submission's labs then run a process each, so each is known once graded); the
exit code is then 1.

-j N grades N labs at once (default: the number of cores); the gradebook's rows stay in
student, lab order.

Exit codes: 0 every graded lab passed, 1 something failed or was missing, 2 usage error (or a
gradebook that cannot be written), 128 + the signal's number when interrupted
(130 for Ctrl-C, 143 for SIGTERM); the gradebook keeps the finished rows.

A class beyond one machine: --shard I/N grades the students at sorted positions I, I+N, ...
(every shard must see the same class folder); give each shard its own --csv (default
gradebook-I-of-N.csv) and one --junit folder for all (each student has a file of its own).
Then --merge joins the shards' gradebooks, each finished, into one:
  synclab-grade --merge --csv gradebook.csv gradebook-1-of-3.csv gradebook-2-of-3.csv gradebook-3-of-3.csv
A student in two of them, a shard not finished (a student with no total row), shards that
graded different labs or under other settings (their rows' judged_by), and a shard missing are
refused (exit 2); the rows are in student, lab order as one run's.

Examples:
  synclab-grade --kernels kernels --labs 01
  synclab-grade --class submissions/ --csv week3.csv --junit week3-junit --timeout 20
  synclab-grade --class submissions/ --csv week3.csv --resume
  synclab-grade --class submissions/ --csv week3.csv --students alice,bob
)help";

// Gradescope's visibility words, and the options only a platform's results use.
void check_platform_options(const Options &o) {
    static const std::set<std::string> words{"visible", "hidden", "after_due_date", "after_published"};
    for (const auto &[name, value] : {std::pair{"gradescope-visibility", &o.gradescope_visibility},
                                      std::pair{"gradescope-stdout-visibility",
                                                &o.gradescope_stdout_visibility}})
        if (!words.count(*value))
            throw UsageError(std::string("--") + name + " '" + *value + "' is none of visible, "
                             "hidden, after_due_date, after_published: give one of them");
    if (o.has_visibility && o.gradescope.empty())
        throw UsageError("--gradescope-visibility and --gradescope-stdout-visibility shape the "
                         "--gradescope results: give --gradescope FILE too, or leave them out");
    if (!o.note.empty() && o.gradescope.empty() && o.prairielearn.empty())
        throw UsageError("--note is a line for a platform's results: give --gradescope FILE or "
                         "--prairielearn FILE too, or leave it out");
}

void add_options(cxxopts::Options &parser) {
    parser.add_options()
        ("kernels", "grade one student's folder of .cl files", cxxopts::value<std::string>(), "DIR")
        ("class", "grade a class: every sub-folder of DIR is one student",
         cxxopts::value<std::string>(), "DIR")
        ("labs", "labs to grade, e.g. 01,02 (default: every gradable lab)",
         cxxopts::value<std::string>(), "LIST")
        ("device", "device(s) for the dynamic runs, comma-separated, each as the labs' --device "
                   "(e.g. pocl,nvidia; default: the lab's)",
         cxxopts::value<std::string>()->default_value(""), "SPEC")
        ("timeout", "seconds on a core a child run may go with no kernel launched before it counts "
                    "as a hang (at least 2)",
         cxxopts::value<std::string>()->default_value("60"), "S")
        ("memory", "address-space limit of each child run in MiB (at least 1024; 0: none; "
                   "default: 4096 on POCL and Oclgrind, none on other devices, whose drivers "
                   "may reserve more)",
         cxxopts::value<std::string>(), "MIB")
        ("seed", "random seed for every run (0: fresh inputs every run)",
         cxxopts::value<std::string>()->default_value("0"), "N")
        ("draw-key", "the key of each lab's drawn race check and counts, with the handed-in "
                     "kernel's text (default: the key file in --csv's folder, synclab.draw-key, made once "
                     "with a random key; without --csv a fresh random key)",
         cxxopts::value<std::string>(), "TEXT")
        ("draw-key-file", "read the draw key from the first line of FILE",
         cxxopts::value<std::string>(), "FILE")
        ("j,jobs", "labs graded at once (default: the CPUs this process may use: its affinity and its cgroup's quota)",
         cxxopts::value<std::string>(), "N")
        ("csv", "gradebook CSV file (default with --class: gradebook.csv; with --kernels: none)",
         cxxopts::value<std::string>(), "FILE")
        ("junit", "folder for the JUnit XML reports (default with --class: junit; with --kernels: "
                  "none)", cxxopts::value<std::string>(), "DIR")
        ("gradescope", "Gradescope's results.json for one submission (--kernels)",
         cxxopts::value<std::string>(), "FILE")
        ("prairielearn", "PrairieLearn's results.json for one submission (--kernels)",
         cxxopts::value<std::string>(), "FILE")
        ("points", "points per lab in those results, e.g. 09=3,10=2 (default: each lab's own, "
                   "1 unless its declaration says otherwise)",
         cxxopts::value<std::string>()->default_value(""), "LIST")
        ("resume", "keep the gradebook's rows of files unchanged since and grade the rest (a "
                   "student whose files changed is graded again)")
        ("students", "with --class: grade these students again (their folders' names, "
                     "comma-separated) and keep every other row as it is (implies --resume)",
         cxxopts::value<std::string>(), "LIST")
        ("restart", "empty the gradebook first (its rows are lost)")
        ("quick", "one dynamic run per lab and no race check: a fast first pass")
        ("no-oclgrind", "skip the race check on Oclgrind")
        ("stress", "stress schedules for each lab that declares them (default: the lab's own "
                   "number)", cxxopts::value<std::string>(), "N")
        ("no-stress", "skip the stress schedules")
        ("budget", "seconds the whole grading may take: then the labs still running are stopped "
                   "and named, and every lab finished keeps its grade (as SIGALRM does)",
         cxxopts::value<std::string>(), "S")
        ("no-hbcheck", "grade where hbcheck, the fence check between work-groups, is missing: "
                       "the labs that need it fail as not checked (without this, such a "
                       "grading is refused)")
        ("gradescope-visibility", "when students see the tests of --gradescope: visible, "
                                  "hidden, after_due_date or after_published",
         cxxopts::value<std::string>()->default_value("visible"), "WHEN")
        ("gradescope-stdout-visibility", "when students see the grader's log on Gradescope "
                                         "(the same words)",
         cxxopts::value<std::string>()->default_value("hidden"), "WHEN")
        ("note", "a line for the student at the top of a platform's results (e.g. what the "
                 "upload went wrong in)",
         cxxopts::value<std::string>(), "TEXT")
        ("no-sandbox", "grade without bubblewrap: each lab then runs with the grader's own "
                       "privileges and can read whatever the grader can (needed for --class "
                       "when there is no sandbox)")
        ("shard", "with --class: grade one slice of the class, I of N (students at sorted "
                  "positions I, I+N, ...), e.g. --shard 2/8", cxxopts::value<std::string>(), "I/N")
        ("merge", "join the finished gradebooks given after the options (shards of one class) "
                  "into --csv, grading nothing")
        ("inputs", "", cxxopts::value<std::vector<std::string>>())
        ("list-labs", "list the labs this build can grade (id, executable, kernel file, points; "
                      "--labs and --points choose), then exit")
        ("h,help", "show this help");
}

// The options as given, unchecked (check_options judges them).
Options read_options(const cxxopts::ParseResult &o) {
    Options opt;
    opt.list_labs = o.count("list-labs") > 0;
    opt.one = o.count("kernels") > 0;
    opt.many = o.count("class") > 0;
    if (opt.one != opt.many) opt.folder = o[opt.one ? "kernels" : "class"].as<std::string>();
    opt.has_labs = o.count("labs") > 0;
    if (opt.has_labs) opt.labs = o["labs"].as<std::string>();
    opt.device = o["device"].as<std::string>();
    opt.timeout_text = o["timeout"].as<std::string>();
    opt.has_memory = o.count("memory") > 0;
    if (opt.has_memory) opt.memory_text = o["memory"].as<std::string>();
    opt.seed_text = o["seed"].as<std::string>();
    if (o.count("draw-key")) opt.draw_key = o["draw-key"].as<std::string>();
    if (o.count("draw-key-file")) opt.draw_key_file = o["draw-key-file"].as<std::string>();
    opt.has_jobs = o.count("jobs") > 0;
    if (opt.has_jobs) opt.jobs_text = o["jobs"].as<std::string>();
    for (auto [name, to] : {std::pair{"csv", &opt.csv}, std::pair{"junit", &opt.junit},
                            std::pair{"gradescope", &opt.gradescope},
                            std::pair{"prairielearn", &opt.prairielearn}}) {
        if (!o.count(name)) continue;
        *to = o[name].as<std::string>();
        if (to->empty())
            throw UsageError(std::string("--") + name + " is empty: give a " +
                             (to == &opt.junit ? "folder" : "file") + " name, e.g. --" + name + " " +
                             (to == &opt.csv     ? "gradebook.csv"
                              : to == &opt.junit ? "junit"
                                                 : "results.json"));
    }
    opt.points = o["points"].as<std::string>();
    opt.resume = o.count("resume") > 0;
    opt.restart = o.count("restart") > 0;
    opt.quick = o.count("quick") > 0;
    opt.no_oclgrind = o.count("no-oclgrind") > 0;
    opt.no_stress = o.count("no-stress") > 0;
    opt.has_stress = o.count("stress") > 0;
    opt.no_sandbox = o.count("no-sandbox") > 0;
    opt.has_students = o.count("students") > 0;
    if (opt.has_students) opt.students = o["students"].as<std::string>();
    if (opt.has_stress) opt.stress_text = o["stress"].as<std::string>();
    if (o.count("budget")) opt.budget_text = o["budget"].as<std::string>();
    opt.no_hbcheck = o.count("no-hbcheck") > 0;
    opt.gradescope_visibility = o["gradescope-visibility"].as<std::string>();
    opt.gradescope_stdout_visibility = o["gradescope-stdout-visibility"].as<std::string>();
    opt.has_visibility = o.count("gradescope-visibility") + o.count("gradescope-stdout-visibility") > 0;
    if (o.count("note")) opt.note = o["note"].as<std::string>();
    if (o.count("shard")) opt.shard_text = o["shard"].as<std::string>();
    opt.merge = o.count("merge") > 0;
    if (o.count("inputs")) opt.inputs = o["inputs"].as<std::vector<std::string>>();
    return opt;
}

}  // namespace

Options parse_options(int argc, char **argv) {
    cxxopts::Options parser("synclab-grade",
                            "Grades students' lab kernels: runs each lab as a child process, "
                            "checks its answers and its races, and writes a gradebook.");
    add_options(parser);
    parser.parse_positional({"inputs"});
    cxxopts::ParseResult o;
    try {
        o = parser.parse(argc, argv);
    } catch (const cxxopts::exceptions::exception &e) {
        throw UsageError(std::string(e.what()) + " (see --help)");
    }
    if (!o.unmatched().empty())
        throw UsageError("unexpected argument '" + o.unmatched().front() + "' (see --help)");
    if (o.count("inputs") && !o.count("merge"))
        throw UsageError("unexpected argument '" + o["inputs"].as<std::vector<std::string>>().front() +
                         "' (see --help; only --merge takes files after its options)");
    if (o.count("help")) {
        Options opt;
        opt.help = true;
        opt.help_text = parser.help() + kMore;
        return opt;
    }
    return read_options(o);
}

namespace {

// --shard I/N: with --class, 1 <= I <= N <= 10000.
void check_shard(Options &o) {
    if (o.shard_text.empty()) return;
    if (!o.many) throw UsageError("--shard slices a class: give it with --class DIR");
    std::smatch m;
    if (!std::regex_match(o.shard_text, m, std::regex("([0-9]{1,5})/([0-9]{1,5})")))
        throw UsageError("--shard '" + o.shard_text + "' is not I/N: give e.g. --shard 2/8 (the "
                         "second of eight slices)");
    o.shard_index = static_cast<unsigned>(std::stoul(m[1]));
    o.shard_count = static_cast<unsigned>(std::stoul(m[2]));
    if (o.shard_count < 1 || o.shard_count > 10000 || o.shard_index < 1 || o.shard_index > o.shard_count)
        throw UsageError("--shard " + o.shard_text + " is out of range: I from 1 to N, N from 1 to 10000");
}

}  // namespace

void check_merge_options(const Options &o) {
    if (o.one || o.many)
        throw UsageError("--merge joins gradebooks and grades nothing: leave out --kernels and --class");
    if (o.csv.empty())
        throw UsageError("--merge needs --csv FILE: the gradebook it writes");
    if (o.resume || o.has_students || !o.shard_text.empty())
        throw UsageError("--merge writes its gradebook whole from the shards': leave out --resume, "
                         "--students and --shard");
    if (o.inputs.size() < 1)
        throw UsageError("--merge has no gradebooks to join: name them after the options, e.g. "
                         "--merge --csv all.csv gradebook-1-of-2.csv gradebook-2-of-2.csv");
}

void check_options(Options &o) {
    if (o.one == o.many)
        throw UsageError("give either --kernels DIR (one student) or --class DIR (every sub-folder "
                         "a student), not both and not neither (see --help)");
    if (o.many && !(o.gradescope.empty() && o.prairielearn.empty()))
        throw UsageError(std::string("--") + (o.gradescope.empty() ? "prairielearn" : "gradescope") +
                         " writes one submission's results: give it with --kernels DIR (a class "
                         "gets its gradebook and JUnit reports)");
    if (o.resume && o.restart)
        throw UsageError("--resume keeps the gradebook's rows and --restart empties it: give one");
    check_shard(o);
    if (o.many) {  // a class always gets its gradebook and reports; a shard its own gradebook
        if (o.csv.empty())
            o.csv = o.shard_count ? "gradebook-" + std::to_string(o.shard_index) + "-of-" +
                                        std::to_string(o.shard_count) + ".csv"
                                  : "gradebook.csv";
        if (o.junit.empty()) o.junit = "junit";
    }
    if ((o.resume || o.restart) && o.csv.empty())
        throw UsageError(std::string("--") + (o.resume ? "resume" : "restart") +
                         " acts on a gradebook, and one submission's grading writes none unless "
                         "asked: give --csv FILE too, or leave out --" +
                         (o.resume ? "resume" : "restart"));
    if (o.has_students) {
        if (!o.many)
            throw UsageError("--students picks students of a class: give it with --class DIR");
        if (o.restart)
            throw UsageError("--students keeps the other students' rows and --restart empties the "
                             "gradebook: give one");
        if (o.students.empty())
            throw UsageError("--students is empty: give the students' folder names, e.g. --students alice,bob");
        o.resume = true;
    }
    o.timeout = number_option("timeout", o.timeout_text, "seconds", 2, synclab::protocol::kMaxTimeout,
                              "a lab needs that long to build its kernels and start");
    // 1 TiB: any real limit is below it, and MiB << 20 stays far from overflowing.
    constexpr double kMaxMemoryMiB = double(std::size_t(1) << 20);
    o.memory_mib = 4096;
    if (o.has_memory) {
        const std::string &text = o.memory_text;
        o.memory_mib = text == "0" ? 0
                                   : static_cast<std::size_t>(number_option(
                                         "memory", text, "MiB", 1024, kMaxMemoryMiB,
                                         "a lab's OpenCL runtime needs about 512 MiB of address "
                                         "space to start; 0 means no limit"));
        if (text.find('.') != std::string::npos)
            throw UsageError("--memory " + text + " is not a whole number of MiB");
    }
    if (!std::regex_match(o.seed_text, std::regex("[0-9]{1,19}")))
        throw UsageError("--seed '" + o.seed_text + "' is not a whole number (e.g. --seed 11)");
    o.seed = std::stoull(o.seed_text);
    if (!o.draw_key.empty() && !o.draw_key_file.empty())
        throw UsageError("--draw-key and --draw-key-file both give the key: give one");
    if (o.draw_key.size() > 256 || o.draw_key.find_first_of("\n\r") != std::string::npos)
        throw UsageError("--draw-key is one line of at most 256 characters (e.g. --draw-key 'course 2026')");
    o.jobs = synclab::usable_cpus();
    if (o.has_jobs)
        o.jobs = static_cast<unsigned>(number_option("jobs", o.jobs_text, "jobs", 1, 256,
                                                     "one lab at a time is the least"));
    if (o.has_jobs && o.jobs_text.find('.') != std::string::npos)
        throw UsageError("--jobs " + o.jobs_text + " is not a whole number");
    if (o.has_stress) {
        if (!std::regex_match(o.stress_text, std::regex("[0-9]{1,4}")) || o.stress_text == "0")
            throw UsageError("--stress '" + o.stress_text + "' is no number of schedules: give 1 "
                             "to 9999 (or --no-stress for none)");
        if (o.no_stress) throw UsageError("--stress N and --no-stress contradict: give one");
        o.stress = static_cast<unsigned>(std::stoul(o.stress_text));
    }
    if (!o.budget_text.empty())
        o.budget = number_option("budget", o.budget_text, "seconds", 1, 1e6,
                                 "the grader needs that long to start");
    check_platform_options(o);
}

}  // namespace grade
