// Running lab children (batch.hpp): one synclab-labs process a batch, one rule for its lines.
#include "batch.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "grade.hpp"
#include "settings.hpp"
#include "judge.hpp"  // join, seconds_text
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;

namespace grade {

namespace protocol = synclab::protocol;

JobFolders job_folders(const std::string &job_dir, const Settings &s) {
    JobFolders j;
    j.job = job_dir;
    j.copy = (fs::path(job_dir) / "submission").string();
    j.tmp = (fs::path(job_dir) / "tmp").string();
    j.cache = (fs::path(job_dir) / "cache").string();
    std::error_code ec;
    fs::create_directories(j.tmp, ec);
    fs::create_directories(j.cache, ec);
    j.env = {{"TMPDIR", j.tmp}, {"HOME", j.tmp}, {"POCL_CACHE_DIR", j.cache},
             {"XDG_CACHE_HOME", j.cache}, {protocol::kKernels, ""}, {"OCLGRIND_LOG", ""},
             {"OCL_ICD_VENDORS", s.icd_vendors}, {protocol::kProfile, s.profile},
             {protocol::kTextCache, (fs::path(j.cache) / "synclab-texts").string()}};
    // The labs, the runner and its modules, and the user's own OpenCL vendor folder when there is one.
    j.readable = {s.bin_dir};
    // hbcheck's plugin, which the labs find beside them (bin/../lib).
    const fs::path lib = fs::path(s.bin_dir).parent_path() / "lib";
    if (fs::is_directory(lib, ec)) j.readable.push_back(lib.string());
    if (!s.icd_vendors.empty() && fs::is_directory(s.icd_vendors, ec)) j.readable.push_back(s.icd_vendors);
    return j;
}

void clear_folder(const std::string &dir) {
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec))
        if (e.path().filename() != "cache") fs::remove_all(e.path(), ec);
}

void empty_job(const std::string &dir) {
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec)) fs::remove_all(e.path(), ec);
}

namespace {

// A line's arguments as the lab takes them.
protocol::Args lab_args(const Settings &s, const JobFolders &job, const Line &line, const std::string &verdict) {
    protocol::Args a{"--kernels", job.copy, "--verdict", verdict};
    if (line.variants) a.insert(a.end(), {"--variant", join(line.recipe->variants, ",")});
    a.insert(a.end(), line.args.begin(), line.args.end());
    if (s.seed) a.insert(a.end(), {"--seed", std::to_string(s.seed)});
    a.insert(a.end(), {"--timeout", seconds_text(s.timeout_s)});
    return a;
}

// Each line's time: from its marker to the next marked line's, the last to the process's end on
// our clock (`wall`), so the sandbox's start before the runner's clock falls to the last.
void line_times(BatchResult &b, const protocol::RunParts &parts, double wall) {
    std::size_t prev = b.runs.size();
    for (std::size_t i = 0; i < b.runs.size(); ++i) {
        if (!b.ran[i] || !parts.marked[i]) continue;
        if (prev < b.runs.size()) b.runs[prev].seconds = std::max(0.0, parts.at[i] - parts.at[prev]);
        prev = i;
    }
    if (prev < b.runs.size()) b.runs[prev].seconds = std::max(0.0, wall - parts.at[prev]);
}

}  // namespace

BatchResult run_batch(const Settings &s, const JobFolders &job, const std::vector<Line> &lines,
                      const BatchSpec &spec, const volatile int *stop) {
    BatchResult b;
    const std::size_t n = lines.size();
    b.runs.resize(n);
    b.ran.assign(n, false);
    if (!n) {
        b.stopped = true;
        return b;
    }
    std::vector<protocol::Args> batch;
    std::vector<std::string> verdicts;
    std::error_code ec;
    for (std::size_t i = 0; i < n; ++i) {
        verdicts.push_back((fs::path(job.job) / protocol::verdict_file(i)).string());
        fs::remove(verdicts.back(), ec);  // only this process's verdicts count
        const protocol::Args args = lab_args(s, job, lines[i], verdicts.back());
        b.runs[i].argv = {(fs::path(s.bin_dir) / lines[i].recipe->executable).string()};
        b.runs[i].argv.insert(b.runs[i].argv.end(), args.begin(), args.end());
        batch.push_back({lines[i].recipe->declaration.dir});
        batch.back().insert(batch.back().end(), args.begin(), args.end());
    }
    const std::string batch_file = (fs::path(job.job) / protocol::kBatchFile).string();
    std::ofstream(batch_file, std::ios::binary | std::ios::trunc) << protocol::batch_text(batch);

    synclab::ProcessLimits limits;
    limits.timeout_s = protocol::batch_timeout(s.timeout_s, n);
    limits.memory_bytes = spec.memory_bytes;
    limits.cwd = job.copy;   // so each lab names its kernel file as the student does
    limits.stop = stop;      // a signal between our last look at *stop and the fork ends it too
    limits.parent_pipe = true;  // stops with the grader, through the sandbox
    std::map<std::string, std::string> env = spec.env;
    env.insert(job.env.begin(), job.env.end());
    const Place place(s, spec.role, stop);
    if (!place.entered()) {
        b.stopped = true;
        return b;
    }
    const auto began = std::chrono::steady_clock::now();
    const synclab::ProcessResult process = synclab::run_process(
        s.sandbox.wrap({s.runner(), "--batch", batch_file}, job.job, job.readable, job.copy), env, limits);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    fs::remove(batch_file, ec);
    b.stopped = stop && *stop;

    const protocol::RunParts parts = protocol::split_runs(process.out, process.err, n);
    for (std::size_t i = 0; i < n; ++i) {
        bool found = false;
        b.runs[i].verdict = protocol::read_verdict(verdicts[i], &found);
        b.ran[i] = found || parts.marked[i];
        if (b.ran[i]) b.end = i;
        fs::remove(verdicts[i], ec);
    }
    // The line the runner was on: past the last one that began when that one finished and the
    // runner had a line left (it ends a lab's lines at one that did not exit 0).
    if (b.ran[b.end] && b.runs[b.end].verdict.finished) {
        const std::size_t next = protocol::next_line(batch, b.end, b.runs[b.end].verdict.exit_code != 0);
        if (next < n) b.end = next;
    }
    b.ran[b.end] = true;  // none began: the process's end is the first line's
    for (std::size_t i = 0; i < n; ++i) {
        if (!b.ran[i]) continue;
        Run &r = b.runs[i];
        if (i == b.end) r.process = process;
        r.process.exited = i == b.end ? process.exited : r.verdict.finished;
        if (i != b.end) r.process.exit_code = r.verdict.exit_code;
        r.process.out = parts.out[i];
        r.process.err = parts.err[i];
        if (i != b.end) r.process.dropped = 0;
    }
    line_times(b, parts, wall);
    return b;
}

}  // namespace grade
