// The JUnit reports as a record: <folder>/<student>.xml, one testcase per lab, written whole
// once the student's last lab is known.
#include "record.hpp"

namespace grade {
namespace {

class JunitRecord : public Record {
public:
    // The folder is checked before the first student; the file names are fixed for the whole
    // class up front, so a resumed run writes the same files.
    explicit JunitRecord(const RecordSettings &s) : dir_(s.junit) {
        check_junit_dir(dir_);
        files_ = junit_names(s.students);
    }
    void student(std::size_t index, const std::string &student,
                 const std::vector<Result> &rows) override {
        write_junit(dir_, files_[index], student, rows);
    }

private:
    std::string dir_;
    std::vector<std::string> files_;
};

}  // namespace

std::unique_ptr<Record> open_junit_record(const RecordSettings &s) {
    return std::make_unique<JunitRecord>(s);
}

}  // namespace grade
