// The JUnit reports as a record: <folder>/<student>.xml, one testcase per lab, written whole
// once the student's last lab is known.
#include "record.hpp"
#include "text_escape.hpp"

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

    // XML 1.0 holds no control character but tab and line breaks (not even as &#27;), no byte
    // that is not UTF-8 and no U+FFFE/U+FFFF: a kernel's printf may give any of them, so they
    // are written escaped (\xHH) and the report stays well-formed.
    void student(std::size_t index, const std::string &student,
                 const std::vector<Result> &rows) override {
        std::vector<Result> written = rows;
        for (auto &r : written) {
            r.student = shown(r.student);
            r.reason = shown_text(r.reason, true);
            r.details = shown_text(r.details, true);
        }
        write_junit(dir_, files_[index], shown(student), written);
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
