// The CSV gradebook as a record: locked for the whole run, one row appended and synced per
// graded lab, its earlier rows kept with --resume (report.hpp's Gradebook), and at the end
// written again whole in student, lab order with each student's total row.
#include <algorithm>
#include <map>
#include <tuple>

#include "record.hpp"
#include "text_escape.hpp"

namespace grade {
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
