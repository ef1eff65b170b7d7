// For each lab's declaration.hpp (and, through --describe, the grader and the tests): everything
// about a lab, said once. The lab's folder name gives its id, executable and kernel file.
#pragma once
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "synclab/program_text.hpp"  // kLocalLimit

namespace synclab {

struct Variant {
    std::string name;                  // what --variant takes: "sync"
    std::vector<std::string> kernels;  // the kernels it runs: {"reduceWithSync"}
    // The starter leaves it to the student: run with kernels/, it must fail.
    bool todo = false;
    // Meant to go wrong (lab 01's reduceNoSync): reported, never graded.
    bool demonstration = false;
    // Graded by synclab-grade; false for what not every device can run (sub-groups).
    bool graded = true;
};

using Args = std::vector<std::string>;

// A count a grading draws for each submission, by the hash that draws its race-check member (the
// kernel's text, the lab, the grader's key): `{name}` inside any argument of `grading`,
// `race_checks`, `drawn_checks`, `drawn_grading` or `stress_args` becomes a whole number from
// `low` to `high`. A kernel cannot wait the checks out: it does not know which count it meets.
struct Draw {
    std::string name;  // "steps": the arguments say {steps}
    unsigned low = 0, high = 0;
};

struct Declaration {
    // The lab's folder name, e.g. "01_workgroup_reduce": write `.dir = SYNCLAB_LAB_DIR`, which
    // the build sets from the folder, so a copied folder is a new lab with nothing renamed.
    std::string dir;
    std::string summary;      // one line for the README's lab table (Markdown)
    std::string description;  // one or two sentences for --help
    std::vector<Variant> variants;
    // Grading: each argument set is one run per graded variant on the chosen device, with fresh
    // inputs; the first is the --quick one. Vary sizes and parameters a kernel must not hard-code.
    std::vector<Args> grading;
    // The race checks: each argument set is one run of every graded variant on Oclgrind, in
    // order, until one finds something (shapes a kernel meets: whole blocks and a ragged edge);
    // none, and race_check_skipped says why.
    std::vector<Args> race_checks = {};
    // Race checks of which each grading draws one, run after `race_checks` found nothing:
    // shapes a kernel must not hard-code, every member multi-group, at work-group sizes the
    // declared checks do not use (where groups meet: 5 to 7 of them at once, counts neither
    // squares nor powers of two). The grader draws by a hash of the submitted kernel, the lab
    // and its --draw-key, so a grade is a function of the submission; --describe lists the set,
    // not the member one grading draws.
    std::vector<Args> drawn_checks = {};
    // Each member's twin on the grading device: the same shape (work-group size, one group or
    // several) and inputs, run beside the dynamic runs; member k of drawn_checks draws member k of
    // this (one of each, or none: then the set is empty).
    std::vector<Args> drawn_grading = {};
    // Counts drawn per submission (Draw): steps, sweeps, groups.
    std::vector<Draw> draws = {};
    std::string race_check_skipped = {};
    // Oclgrind checks the race check turns off (OCLGRIND_<NAME>=0), e.g. "uninitialized".
    std::vector<std::string> oclgrind_off = {};
    // The lab's build options change with its grading runs' sizes (-D WG, -D SUBGROUP_SIZE),
    // so each build meets one work-group size. Otherwise one build meets every size, and the
    // grader has POCL compile each kernel once for all of them, not once per size (tools/grade).
    bool build_per_size = false;
    // Its kernels make work-groups meet (wait for one another: locks, barriers between groups;
    // or hand data over through a fence and an atomic): 0, or how many groups Oclgrind runs at
    // once in its race check (OCLGRIND_NUM_THREADS). Then
    // Oclgrind loads hbcheck too, which judges the accesses of different groups by OpenCL's
    // memory model (fences and atomics), while Oclgrind's own check keeps those within a group.
    // Other labs' race checks run one group at a time (deterministic, one core under -j).
    unsigned oclgrind_groups = 0;
    // Stress: its protocols between work-groups are run under seeded schedules of injected
    // delays (synclab/stress.hpp, `--stress N`). The grader runs `stress_schedules` of them, one
    // process with `stress_args` (which name the variants), after the race check passed; 0: none.
    unsigned stress_schedules = 0;
    Args stress_args = {};
    // What the grader adds to stress_args for the warm-up it runs first, beside other work
    // (`--warm-up`: the stress build, run once with no delays, for POCL's cache): the least work
    // that still launches every kernel a schedule launches, at the same work-group sizes.
    Args stress_warm_up = {};
    // The most bytes of __local arrays one kernel may declare, used or not: a graded build over
    // it fails (synclab/program_text.hpp). What real GPUs give a work-group, unless the lab says.
    std::size_t local_limit = kLocalLimit;
    // The lab's weight in a score (Gradescope, PrairieLearn): points for a pass, 0 for anything
    // else. An instructor reweights without code: synclab-grade --points 09=3.
    unsigned points = 1;
    std::function<void(cxxopts::Options &)> options = {};  // the lab's own options, if any

    std::string id() const { return dir.substr(0, 2); }           // "01"
    std::string executable() const { return "lab" + dir; }         // "lab01_workgroup_reduce"
    std::string kernel_file() const { return dir + ".cl"; }        // "01_workgroup_reduce.cl"
    const Variant *find(const std::string &variant) const;
    // The longest kernel name of any variant, at least `at_least`: the width of a table's kernel
    // column, so that its rows align whatever a kernel is called.
    int kernel_width(std::size_t at_least = 0) const;
    // The same for the variants' names.
    int variant_width(std::size_t at_least = 0) const;
};

// Whether the lab's work-groups wait for one another (a lock, a barrier between groups): it
// declares stress schedules for those protocols (07, 09, 10). Groups that only meet on Oclgrind
// (lab 08's hand their partials to the last one, and none waits) do not count.
inline bool groups_wait(const Declaration &d) { return d.stress_schedules > 0; }

// POCL_WORK_GROUP_SPECIALIZATION for a lab's dynamic runs: on only where each build meets one
// work-group size (build_per_size). Stress runs always have it on (synclab/stress.hpp).
inline const char *pocl_work_group_specialization(const Declaration &d) {
    return d.build_per_size ? "1" : "0";
}

// The machine-readable form, version 1 (docs/contract.md): one record per line,
// fields separated by tabs.
//   synclab-lab 1
//   dir|summary|description <text>
//   variant <name> <kernels, comma-separated> <flags: todo,demonstration,ungraded or ->
//   grade <arg> <arg> ...          one line per grading run
//   race <arg> ...                 the race check's arguments (absent: none)
//   drawn <arg> ...                a member of the set one race check is drawn from
//   drawn-grade <arg> ...          the same member's run on the grading device (paired in order)
//   draw <name> <low> <high>       {name} in any argument: a count drawn from low to high
//   race-skipped <why>
//   oclgrind-off <check>
//   build-per-size                 its build options change with the grading sizes (-D)
//   oclgrind-groups <N>            its race check runs N groups at once, with hbcheck
//   stress <N> <arg> ...           the grader runs N stress schedules with these arguments
//   points <N>                     its weight in a score (absent: 1)
constexpr int kContractVersion = 1;
void describe(std::ostream &os, const Declaration &d);
// Reads what describe() wrote; throws std::runtime_error naming the bad line.
Declaration parse_description(const std::string &text);

// The declaration with each draw's `{name}` replaced by values[i] (one per draw, in order) in every
// argument list that may hold one; its draws are then empty.
Declaration with_draws(const Declaration &d, const std::vector<unsigned> &values);
// Every `{name}` an argument of the declaration holds that no draw declares (empty: none).
std::vector<std::string> undeclared_draws(const Declaration &d);

}  // namespace synclab
