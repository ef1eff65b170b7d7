// The one registration point of the grader's records: the table of every output format.
#include "record.hpp"

namespace grade {

// Each format's factory, defined in its own file (record_<format>.cpp).
std::unique_ptr<Record> open_junit_record(const RecordSettings &s);
std::unique_ptr<Record> open_csv_record(const RecordSettings &s);
std::unique_ptr<Record> open_gradescope_record(const RecordSettings &s);  // record_json.cpp
std::unique_ptr<Record> open_prairielearn_record(const RecordSettings &s);

namespace {

using Factory = std::unique_ptr<Record> (*)(const RecordSettings &);

// In the order they are opened (and told each row): the JUnit folder is checked before the
// gradebook is taken.
constexpr Factory kRecords[] = {
    open_junit_record,
    open_csv_record,
    open_gradescope_record,
    open_prairielearn_record,
};

}  // namespace

Records open_records(const RecordSettings &s) {
    Records out;
    for (Factory open : kRecords)
        if (auto record = open(s)) out.push_back(std::move(record));
    return out;
}

}  // namespace grade
