// The one registration point of the grader's records: the table of every output format; and
// what the records share (write_whole).
#include "record.hpp"

#include <filesystem>
#include <fstream>

#include "synclab/errors.hpp"

namespace fs = std::filesystem;

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

void write_whole(const std::string &path, const std::string &text, const std::string &where) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp);
        out << text;
        if (!out.flush() || (out.close(), !out))
            throw synclab::UsageError("cannot write " + tmp + ": check " + where + " is writable");
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec)
        throw synclab::UsageError("cannot write " + path + " (" + ec.message() + "): check " +
                                  where + " is writable");
}

Records open_records(const RecordSettings &s) {
    Records out;
    for (Factory open : kRecords)
        if (auto record = open(s)) out.push_back(std::move(record));
    return out;
}

}  // namespace grade
