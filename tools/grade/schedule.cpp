// The run and record stages of synclab-grade: the worker pool and the rows in order.
#include "schedule.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>
#include <unistd.h>

#include "judge.hpp"  // seconds_text
#include "lab_grading.hpp"  // grade_lab
#include "submission_files.hpp"  // HandedIn
#include "stop.hpp"
#include "submission_grading.hpp"  // grade_labs
#include "text_escape.hpp"
#include "synclab/protocol.hpp"  // shell_quote

namespace fs = std::filesystem;

namespace grade {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}

// A unit of a refused submission: every lab refused, with its reason.
std::vector<Result> refused(const Submission &sub, const std::vector<const Recipe *> &recipes) {
    std::vector<Result> results;
    for (const auto *recipe : recipes) {
        Result r;
        r.student = sub.student;
        r.lab = recipe->id;
        r.grade = Grade::Fail;
        r.kind = Kind::Refused;
        r.reason = sub.refused;
        results.push_back(r);
    }
    return results;
}

class Scheduler {
public:
    Scheduler(Plan &plan, const RunContext &ctx) : plan_(plan), ctx_(ctx) {}
    ~Scheduler();  // never leave a worker running, whatever way we leave
    Outcome run();

private:
    Plan &plan_;
    const RunContext &ctx_;
    std::mutex m_;
    std::condition_variable cv_;
    std::size_t next_ = 0;
    bool abort_ = false;
    std::vector<std::thread> pool_;
    // The main thread's: rows recorded so far, and the progress line.
    const bool tty_ = isatty(1);
    const Clock::time_point start_ = Clock::now();
    Clock::time_point last_progress_ = start_, last_row_ = start_;
    std::size_t written_ = 0, kept_ = 0, appended_ = 0, graded_now_ = 0;
    std::vector<Result> all_;
    std::vector<Result> mine_;  // the current student's rows, for its records

    void worker(unsigned id);
    std::vector<Result> grade_unit(std::size_t u, const std::string &job_dir);
    void progress();
    void emit(Task &task);
    void wait_rows();
    void join();
    std::size_t record_late();
    std::string finished_text(std::size_t late) const;
    Outcome interrupted();
    Outcome out_of_time();
};

Scheduler::~Scheduler() {
    {
        std::lock_guard<std::mutex> lock(m_);
        abort_ = true;
    }
    if (std::any_of(pool_.begin(), pool_.end(), [](auto &t) { return t.joinable(); }) &&
        !g_stop_flag) {
        g_stop_flag = 1;  // a gradebook that cannot be written: end the running children
        kill_children();
    }
    for (auto &t : pool_)
        if (t.joinable()) t.join();
}

namespace {

void replace_all(std::string &text, const std::string &from, const std::string &to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

// Rows graded on files gathered into `gathered` name each lab's file where the student left it
// (the first of its name found, as gathering takes it): a repeat command must not name the
// grader's temporary copy.
void name_own_folders(std::vector<Result> &rows, const std::vector<const Recipe *> &recipes,
                      const std::vector<HandedIn> &found, const std::string &gathered) {
    for (std::size_t i = 0; i < rows.size() && i < recipes.size(); ++i) {
        const auto f = std::find_if(found.begin(), found.end(),
                                    [&](const HandedIn &h) { return h.name == recipes[i]->kernel_file; });
        if (f == found.end()) continue;
        std::error_code ec;
        const std::string own = fs::absolute(fs::path(f->path).parent_path(), ec).lexically_normal().string();
        for (std::string *text : {&rows[i].reason, &rows[i].details}) {
            replace_all(*text, "--kernels " + gathered, "--kernels " + synclab::protocol::shell_quote(own));
            replace_all(*text, gathered, own);
        }
    }
}

}  // namespace

// Each row records the hash of the files it graded, taken before and after: none when they
// changed meanwhile, so that --resume grades them again. In a class, files found in folders
// below the student's are gathered into a folder beside the job's first.
std::vector<Result> Scheduler::grade_unit(std::size_t u, const std::string &job_dir) {
    const auto &unit = plan_.units[u];
    const Submission &sub = ctx_.subs[plan_.tasks[unit.front()].student];
    std::vector<const Recipe *> recipes;
    for (std::size_t t : unit) recipes.push_back(plan_.tasks[t].recipe);
    const SubmissionFiles files = files_of(sub, ctx_.all_labs, plan_.gather);
    std::vector<Result> results;
    std::string folder = files.folder;
    if (files.gathered) {
        folder = job_dir + "-files";
        if (!gather_handed_in(files.found, folder)) folder = files.folder;
    }
    if (!sub.refused.empty()) results = refused(sub, recipes);
    else if (recipes.size() == 1)
        results = {grade_lab(*recipes[0], sub.student, folder, ctx_.settings, &g_stop_flag, job_dir)};
    else
        results = grade_labs(recipes, sub.student, folder, ctx_.settings, &g_stop_flag, job_dir);
    if (folder != files.folder) name_own_folders(results, recipes, files.found, folder);
    note_misnamed(results, files.misnamed);
    const bool same = files_of(sub, ctx_.all_labs, plan_.gather).sha256 == files.sha256;
    for (auto &r : results) r.files_sha256 = same ? files.sha256 : "";
    if (ctx_.judging)
        for (std::size_t i = 0; i < results.size(); ++i) judge_row(results[i], *recipes[i], *ctx_.judging);
    return results;
}

void Scheduler::worker(unsigned id) {
    const std::string job_dir = ctx_.work + "/job-" + std::to_string(id);
    std::error_code e;
    fs::create_directories(job_dir, e);
    for (;;) {
        std::size_t u;
        {
            std::lock_guard<std::mutex> lock(m_);
            if (next_ >= plan_.units.size() || abort_ || g_stop) return;
            u = next_++;
        }
        std::vector<Result> results = grade_unit(u, job_dir);
        {
            std::lock_guard<std::mutex> lock(m_);
            for (std::size_t i = 0; i < plan_.units[u].size(); ++i) {
                plan_.tasks[plan_.units[u][i]].result = std::move(results[i]);
                plan_.tasks[plan_.units[u][i]].ready = true;
            }
        }
        cv_.notify_all();
    }
}

// On a terminal the last line is the progress, redrawn in place; it is gone once all is done.
// Time left: the rows still to come at the pace the graded ones came, less the time since the
// last one.
void Scheduler::progress() {
    const std::size_t total = plan_.tasks.size();
    if (!tty_ || written_ == total) return;
    last_progress_ = Clock::now();
    const std::size_t left = total - written_;
    std::cout << "\r\033[K[" << written_ << "/" << total << "] ";
    if (graded_now_) {
        const double per = seconds(start_, last_row_) / static_cast<double>(graded_now_);
        const double eta = per * static_cast<double>(left) - seconds(last_row_, last_progress_);
        std::cout << "about " << static_cast<long long>(std::max(eta, 0.0) + 0.5) << " s left";
    }
    std::cout << std::flush;
}

// In gradebook order: every record, the console's line, and the student's rows once complete.
void Scheduler::emit(Task &task) {
    Result &r = task.result;
    if (!r.kept) {
        for (auto &record : ctx_.records) record->row(r);
        ++appended_;
        ++graded_now_;
        last_row_ = Clock::now();
    } else {
        ++kept_;
    }
    ++written_;
    if (tty_) std::cout << "\r\033[K";
    const std::string verdict = r.passed() ? "pass" : r.grade == Grade::Missing ? "missing" : "FAIL";
    std::string why;
    if (r.grade == Grade::Missing) why = " (" + r.reason + ")";
    else if (!r.passed()) why = std::string(" ") + name(r.kind) + ": " + r.reason;
    else if (r.reason.find("not ") != std::string::npos) why = " (" + r.reason + ")";
    const std::string &student = ctx_.subs[task.student].student;
    std::cout << "[" << written_ << "/" << plan_.tasks.size() << "] " << shown(student) << ", lab "
              << r.lab << ": " << verdict << shown_text(why) << (r.kept ? " (kept from the gradebook)" : "")
              << "\n";
    mine_.push_back(r);
    const auto &tasks = plan_.tasks;
    if (written_ == tasks.size() || tasks[written_].student != task.student) {
        for (auto &record : ctx_.records) record->student(task.student, student, mine_);
        all_.insert(all_.end(), mine_.begin(), mine_.end());
        mine_.clear();
    }
    progress();
}

void Scheduler::wait_rows() {
    progress();
    auto &tasks = plan_.tasks;
    std::unique_lock<std::mutex> lock(m_);
    while (written_ < tasks.size()) {
        cv_.wait_for(lock, std::chrono::milliseconds(200),
                     [&] { return tasks[written_].ready || g_stop; });
        if (g_stop) break;
        if (Clock::now() - last_progress_ > std::chrono::seconds(1))
            progress();  // the time left counts down while a slow lab runs
        while (written_ < tasks.size() && tasks[written_].ready) {
            Task &task = tasks[written_];
            lock.unlock();
            emit(task);
            lock.lock();
        }
    }
}

void Scheduler::join() {
    for (auto &t : pool_) t.join();
    pool_.clear();
}

// Every row finished before the signal is kept, in order where it can be, so --resume need not
// grade it again.
std::size_t Scheduler::record_late() {
    join();
    std::size_t late = 0;
    for (std::size_t i = written_; i < plan_.tasks.size(); ++i) {
        const Task &t = plan_.tasks[i];
        if (t.ready && t.result.finished() && !t.result.kept) {
            for (auto &record : ctx_.records) record->row(t.result);
            ++late;
        }
    }
    if (tty_) std::cout << "\r\033[K";
    return late;
}

// "N finished row(s) are in FILE", or, where no gradebook is written, "N lab(s) finished".
std::string Scheduler::finished_text(std::size_t late) const {
    const std::size_t n = ctx_.kept_rows + appended_ + late;
    return ctx_.csv.empty() ? std::to_string(n) + " lab(s) finished"
                            : std::to_string(n) + " finished row(s) are in " + ctx_.csv;
}

Outcome Scheduler::interrupted() {
    const std::size_t late = record_late();
    std::cout << "\ninterrupted (" << strsignal(g_stop) << "): " << finished_text(late)
              << (ctx_.csv.empty() ? "" : "; run the same command with --resume to go on") << "\n";
    Outcome out;
    out.interrupted = true;
    return out;
}

// The time budget ran out: the finished rows are kept as on a signal, and the labs a worker had
// taken but not finished are the ones that were running, named to every record.
Outcome Scheduler::out_of_time() {
    const std::size_t late = record_late();
    std::vector<Result> running;
    std::string names;
    for (std::size_t u = 0; u < next_ && u < plan_.units.size(); ++u)
        for (std::size_t t : plan_.units[u]) {
            const Task &task = plan_.tasks[t];
            if (task.ready && task.result.finished()) continue;
            Result r;
            r.student = ctx_.subs[task.student].student;
            r.lab = task.recipe->id;
            running.push_back(r);
            names += (names.empty() ? "" : ", ") + shown(r.student) + " lab " + r.lab;
        }
    for (auto &record : ctx_.records) record->out_of_time(running);
    std::cout << "\nthe time budget" << (ctx_.budget_s ? " of " + seconds_text(ctx_.budget_s) + " s" : "")
              << " ran out" << (names.empty() ? "" : " while grading " + names) << ": "
              << finished_text(late) << "; the rest were not graded"
              << (ctx_.csv.empty() ? "" : " (--resume grades them)") << "\n";
    Outcome out;
    out.out_of_time = true;
    return out;
}

Outcome Scheduler::run() {
    for (unsigned i = 0; i < plan_.jobs; ++i) pool_.emplace_back(&Scheduler::worker, this, i);
    wait_rows();
    if (g_stop == SIGALRM) return out_of_time();
    if (g_stop) return interrupted();
    join();
    Outcome out;
    out.all = std::move(all_);
    out.kept = kept_;
    return out;
}

}  // namespace

Outcome run_plan(Plan &plan, const RunContext &ctx) {
    Scheduler s(plan, ctx);
    return s.run();
}

}  // namespace grade
