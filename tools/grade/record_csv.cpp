// The CSV gradebook as a record: locked for the whole run, one row appended and synced per
// graded lab, its earlier rows kept with --resume (report.hpp's Gradebook).
#include <map>

#include "record.hpp"
#include "text_escape.hpp"

namespace grade {
namespace {

class CsvRecord : public Record {
public:
    explicit CsvRecord(const RecordSettings &s) : book_(s.csv, s.mode) {
        for (const auto &student : s.students) folder_[shown(student)] = student;
    }

    // A kept row names its student as written (shown()), which no other folder's name reads
    // as: it is given back its folder's own name, so the plan finds it. A row written before
    // names were escaped keeps its name, which is the folder's.
    std::vector<Result> kept() const override {
        std::vector<Result> rows = book_.kept();
        for (auto &r : rows)
            if (const auto it = folder_.find(r.student); it != folder_.end()) r.student = it->second;
        return rows;
    }

    // A spreadsheet, a terminal or a script reads the gradebook: no control character (but a
    // reason's tab and line break, which CSV quotes) and no byte that is not UTF-8 goes in raw.
    void row(const Result &r) override {
        Result written = r;
        written.student = shown(r.student);
        written.reason = shown_text(r.reason);
        book_.append(written);
    }

private:
    Gradebook book_;
    std::map<std::string, std::string> folder_;  // shown name -> the folder's own name
};

}  // namespace

std::unique_ptr<Record> open_csv_record(const RecordSettings &s) {
    return std::make_unique<CsvRecord>(s);
}

}  // namespace grade
