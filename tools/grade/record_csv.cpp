// The CSV gradebook (record_csv.hpp): its format, the file, locked for the whole run, and the
// record: one row appended and synced per graded lab, its earlier rows kept with --resume, and
// at the end written again whole in student, lab order with each student's total row.
#include "record_csv.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <tuple>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.hpp"
#include "synclab/errors.hpp"
#include "text_escape.hpp"

namespace fs = std::filesystem;

namespace grade {
namespace {

// A spreadsheet runs a cell that begins with = + - @ (or a tab or CR) as a formula: such a text
// (a student's folder name, or a reason quoting the student's file) is written after a ', as
// OWASP's CSV-injection advice says, and so is one that begins with ' itself, so that reading
// drops exactly one.
bool needs_text_mark(const std::string &s) {
    return !s.empty() && s[0] && std::strchr("=+-@\t\r'", s[0]) != nullptr;
}

std::string csv_text(const std::string &s) { return needs_text_mark(s) ? "'" + s : s; }

std::string from_csv_text(const std::string &s) { return !s.empty() && s[0] == '\'' ? s.substr(1) : s; }

std::string csv_field(const std::string &s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

}  // namespace

const char *const kGradebookHeader =
    "student,lab,grade,kind,reason,seconds,points,max_points,files_sha256,judged_by";
// Older graders': their rows hold no hash, or do not say what judged them, so --resume grades
// them again.
const char *const kOldGradebookHeaders[] = {
    "student,lab,grade,kind,reason,seconds",
    "student,lab,grade,kind,reason,seconds,points,max_points,files_sha256"};

bool gradebook_header(const std::string &line) {
    if (line == kGradebookHeader) return true;
    for (const char *old : kOldGradebookHeaders)
        if (line == old) return true;
    return false;
}

std::string csv_row(const Result &r) {
    return csv_field(csv_text(r.student)) + "," + csv_field(r.lab) + "," + csv_field(name(r.grade)) +
           "," + csv_field(name(r.kind)) + "," + csv_field(csv_text(r.reason)) + "," +
           fixed(r.seconds, 2) + "," + std::to_string(r.passed() ? r.points : 0) + "," +
           std::to_string(r.points) + "," + csv_field(r.files_sha256) + "," +
           csv_field(csv_text(r.judged_by)) + "\n";
}

std::string csv_total_row(const std::string &student, unsigned earned, unsigned most,
                          double seconds, std::size_t labs) {
    const std::string why = std::to_string(earned) + " of " + std::to_string(most) +
                            " points, " + std::to_string(labs) + " lab(s)";
    return csv_field(csv_text(student)) + "," + kTotalLab + ",,," + csv_field(why) + "," +
           fixed(seconds, 2) + "," + std::to_string(earned) + "," + std::to_string(most) + ",,\n";
}

std::vector<CsvLine> csv_records(const std::string &text, std::size_t *whole_end) {
    std::vector<CsvLine> out;
    std::vector<std::string> f(1);
    bool quoted = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted && c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
            f.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            f.emplace_back();
        } else if (c == '\n' && !quoted) {  // a line break inside quotes belongs to the field
            if (!f.back().empty() && f.back().back() == '\r') f.back().pop_back();
            out.push_back({text.substr(start, i + 1 - start), std::move(f)});
            f.assign(1, "");
            start = i + 1;
        } else {
            f.back() += c;
        }
    }
    if (whole_end) *whole_end = start;
    return out;
}

std::vector<Result> parse_gradebook(const std::string &text, std::size_t *whole_end) {
    std::vector<Result> rows;
    const std::vector<CsvLine> records = csv_records(text, whole_end);
    for (std::size_t k = 1; k < records.size(); ++k) {  // after the header
        const std::vector<std::string> &f = records[k].fields;
        if ((f.size() != 6 && f.size() != 9 && f.size() != 10) || f[0].empty() || f[1].empty()) continue;
        Result r;
        r.student = from_csv_text(f[0]);
        r.lab = f[1];
        r.reason = from_csv_text(f[4]);
        r.seconds = std::atof(f[5].c_str());
        r.kept = true;
        if (f.size() == 10) r.judged_by = from_csv_text(f[9]);
        if (f.size() >= 9) {
            r.points = static_cast<unsigned>(std::strtoul(f[7].c_str(), nullptr, 10));
            const bool hex = f[8].size() == 64 &&
                             f[8].find_first_not_of("0123456789abcdef") == std::string::npos;
            r.files_sha256 = hex ? f[8] : "";  // anything else ties the row to nothing
        }
        // A row in words this grader never writes is no row of its own: graded again.
        if (grade_named(f[2], r.grade) && kind_named(f[3], r.kind))
            rows.push_back(r);
    }
    return rows;
}

Gradebook::Gradebook(const std::string &path, Mode mode) : path_(path) {
    auto refuse = [&](const std::string &why) { throw synclab::UsageError(why); };
    if (path.empty()) refuse("--csv is empty: give the gradebook's file name");
    std::error_code ec;
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    struct stat st {};
    const bool exists = stat(path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) refuse("--csv " + path + " is a folder: give a file name");
    if (exists && !S_ISREG(st.st_mode)) {
        // A device (a terminal, /dev/stdout): written, never read back or emptied.
        if (mode == Mode::resume)
            refuse("--resume needs a gradebook file to read back, and " + path +
                   " is not a regular file: give --csv FILE");
        fd_ = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
        if (fd_ < 0)
            refuse("cannot write the gradebook " + path + " (" + std::strerror(errno) +
                   "): give another --csv");
        write_all(std::string(kGradebookHeader) + "\n");
        return;
    }
    regular_ = true;
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0)
        refuse("cannot write the gradebook " + path + " (" + std::strerror(errno) +
               "): check the folder is writable, or give --csv FILE");
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        close(fd_);
        fd_ = -1;
        refuse("the gradebook " + path + " is being written by another synclab-grade: let it "
               "finish, then run with --resume to add to it (or give another --csv)");
    }
    std::string all;
    char buf[65536];
    for (ssize_t got; (got = pread(fd_, buf, sizeof buf, static_cast<off_t>(all.size()))) > 0;)
        all.append(buf, static_cast<std::size_t>(got));
    if (!all.empty() && mode != Mode::restart) {
        std::string first = all.substr(0, all.find('\n'));
        if (!first.empty() && first.back() == '\r') first.pop_back();
        if (!gradebook_header(first))
            refuse("the gradebook " + path + " is not a synclab-grade gradebook (its first line "
                   "is not '" + std::string(kGradebookHeader) + "'): give another --csv");
        std::size_t whole = 0;
        std::vector<Result> rows = parse_gradebook(all, &whole);
        if (mode == Mode::fresh && !rows.empty())
            refuse("the gradebook " + path + " already holds " + std::to_string(rows.size()) +
                   " graded row(s): add --resume to keep them and grade the rest, or --restart "
                   "to start it over");
        kept_ = std::move(rows);
        // A last record without its line end was cut short (the grader was killed while
        // writing it): it is dropped and graded again.
        if (whole < all.size() && ftruncate(fd_, static_cast<off_t>(whole)) != 0)
            refuse("cannot repair the gradebook " + path + " (" + std::strerror(errno) + ")");
        all.resize(whole);
        // An older grader's header over no row: this grader's header instead.
        if (first != kGradebookHeader && kept_.empty()) all.clear();
    }
    if (mode == Mode::restart || all.empty()) {
        if (ftruncate(fd_, 0) != 0)
            refuse("cannot empty the gradebook " + path + " (" + std::strerror(errno) + ")");
        kept_.clear();
        lseek(fd_, 0, SEEK_SET);
        write_all(std::string(kGradebookHeader) + "\n");
    }
    lseek(fd_, 0, SEEK_END);
}

Gradebook::~Gradebook() {
    if (fd_ >= 0) close(fd_);  // the lock goes with it
}

void Gradebook::write_all(const std::string &text) {
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t w = write(fd_, text.data() + done, text.size() - done);
        if (w < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (w <= 0)
            throw synclab::UsageError("cannot write the gradebook " + path_ + " (" +
                                      std::strerror(w < 0 ? errno : EIO) +
                                      "): free some space or give another --csv, then --resume");
        done += static_cast<std::size_t>(w);
    }
    struct stat st {};
    if (fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && fdatasync(fd_) != 0)
        throw synclab::UsageError("cannot write the gradebook " + path_ + " (" +
                                  std::strerror(errno) + "): free some space or give another "
                                  "--csv, then --resume");
}

void Gradebook::append(const Result &r) { write_all(csv_row(r)); }

// Through a file beside it, locked before it takes the gradebook's name: a second grader opens
// either the old file or the new one, and finds either locked. A grader killed half-way leaves
// the old file whole.
void Gradebook::replace(const std::string &rows) {
    if (!regular_) return;
    const std::string tmp = path_ + ".new";
    auto fail = [&](const std::string &what, int err) {
        throw synclab::UsageError("cannot rewrite the gradebook " + path_ + " (" + what + ": " +
                                  std::strerror(err) + "): free some space or make its folder "
                                  "writable, then --resume");
    };
    struct stat st {};
    fstat(fd_, &st);
    unlink(tmp.c_str());
    const int fd = open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) fail(tmp, errno);
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fchmod(fd, st.st_mode & 07777) != 0) {
        const int err = errno;
        close(fd);
        unlink(tmp.c_str());
        fail(tmp, err);
    }
    const int old = fd_;
    fd_ = fd;
    try {
        write_all(std::string(kGradebookHeader) + "\n" + rows);
    } catch (...) {
        fd_ = old;
        close(fd);
        unlink(tmp.c_str());
        throw;
    }
    if (rename(tmp.c_str(), path_.c_str()) != 0) {
        const int err = errno;
        fd_ = old;
        close(fd);
        unlink(tmp.c_str());
        fail("rename", err);
    }
    close(old);  // its lock with it: the new file is locked already
    lseek(fd_, 0, SEEK_END);
}

namespace {

class CsvRecord : public Record {
public:
    explicit CsvRecord(const RecordSettings &s) : s_(s), book_(s.csv, s.mode) {
        std::map<std::string, std::string> folder;  // shown name -> the folder's own name
        for (const auto &student : s.students) folder[shown(student)] = student;
        // A kept row names its student as written (shown()), which no other folder's name reads
        // as: it is given back its folder's own name, so the plan finds it. A row written
        // before names were escaped keeps its name, which is the folder's.
        for (Result r : book_.kept()) {
            if (const auto it = folder.find(r.student); it != folder.end()) {
                written_[it->second] = r.student;
                r.student = it->second;
            }
            kept_.push_back(std::move(r));
        }
    }

    std::vector<Result> kept() const override { return kept_; }

    // The gradebook is written again at once with the rows that stay, under this grader's
    // header: the rows graded again never stand beside their new ones.
    void keep_only(const std::vector<Result> &rows) override {
        for (Result r : rows) {
            if (const auto it = written_.find(r.student); it != written_.end()) r.student = it->second;
            rows_.push_back(worth(std::move(r)));
        }
        if (s_.mode == Gradebook::Mode::resume) book_.replace(text(false));
    }

    // A spreadsheet, a terminal or a script reads the gradebook: no control character (but a
    // reason's tab and line break, which CSV quotes) and no byte that is not UTF-8 goes in raw.
    void row(const Result &r) override {
        Result written = r;
        written.student = shown(r.student);
        written.reason = shown_text(r.reason);
        written = worth(std::move(written));
        book_.append(written);
        rows_.push_back(std::move(written));
    }

    void finish() override { book_.replace(text(true)); }

private:
    const RecordSettings s_;
    Gradebook book_;
    std::vector<Result> kept_;                   // as kept() gives them
    std::map<std::string, std::string> written_;  // a folder's name -> its name as written
    std::vector<Result> rows_;                   // every row of the gradebook, as written

    // A lab graded in this run is worth its --points now, a kept row's lab too.
    Result worth(Result r) const {
        if (const auto it = s_.points.find(r.lab); it != s_.points.end()) r.points = it->second;
        return r;
    }

    // Every row, by student (the class's order, then any other by name) and lab (this run's
    // order, then any other by id); with `totals`, each student's total row after its labs.
    std::string text(bool totals) const {
        std::map<std::string, std::size_t> student_at, lab_at;
        for (std::size_t i = 0; i < s_.students.size(); ++i) student_at.emplace(shown(s_.students[i]), i);
        for (std::size_t i = 0; i < s_.labs.size(); ++i) lab_at.emplace(s_.labs[i]->id, i);
        auto key = [&](const Result &r) {
            const auto st = student_at.find(r.student), lab = lab_at.find(r.lab);
            return std::make_tuple(st == student_at.end() ? student_at.size() : st->second,
                                   st == student_at.end() ? r.student : "",
                                   lab == lab_at.end() ? lab_at.size() : lab->second, r.lab);
        };
        std::vector<Result> rows = rows_;
        std::stable_sort(rows.begin(), rows.end(),
                         [&](const Result &a, const Result &b) { return key(a) < key(b); });
        std::string out;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            out += csv_row(rows[i]);
            if (!totals || (i + 1 < rows.size() && rows[i + 1].student == rows[i].student)) continue;
            unsigned earned = 0, most = 0;
            double seconds = 0;
            std::size_t labs = 0;
            for (const auto &r : rows)
                if (r.student == rows[i].student) {
                    earned += r.passed() ? r.points : 0;
                    most += r.points;
                    seconds += r.seconds;
                    ++labs;
                }
            out += csv_total_row(rows[i].student, earned, most, seconds, labs);
        }
        return out;
    }
};

}  // namespace

std::unique_ptr<Record> open_csv_record(const RecordSettings &s) {
    if (s.csv.empty()) return nullptr;  // one submission's grading, no --csv
    return std::make_unique<CsvRecord>(s);
}

}  // namespace grade
