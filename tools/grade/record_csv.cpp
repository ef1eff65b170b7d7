// The CSV gradebook as a record: locked for the whole run, one row appended and synced per
// graded lab, its earlier rows kept with --resume (report.hpp's Gradebook).
#include "record.hpp"

namespace grade {
namespace {

class CsvRecord : public Record {
public:
    explicit CsvRecord(const RecordSettings &s) : book_(s.csv, s.mode) {}
    std::vector<Result> kept() const override { return book_.kept(); }
    void row(const Result &r) override { book_.append(r); }

private:
    Gradebook book_;
};

}  // namespace

std::unique_ptr<Record> open_csv_record(const RecordSettings &s) {
    return std::make_unique<CsvRecord>(s);
}

}  // namespace grade
