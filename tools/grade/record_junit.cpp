// The JUnit reports as a record: <folder>/<student>.xml, one testcase per lab, written whole
// once the student's last lab is known. A student whose rows were all kept (--resume,
// --students) keeps its report as it was; one graded in part keeps its kept labs' testcases.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "record.hpp"
#include "text_escape.hpp"

namespace fs = std::filesystem;

namespace grade {
namespace {

class JunitRecord : public Record {
public:
    // The folder is checked before the first student. Each file's name is its student's folder
    // name's alone (file_name): whoever else is in the class, a shard or a resumed run, a
    // student always writes the same file and never another's.
    explicit JunitRecord(const RecordSettings &s) : dir_(s.junit) {
        check_junit_dir(dir_);
        for (const auto &student : s.students) files_.push_back(file_name(student));
    }

    // XML 1.0 holds no control character but tab and line breaks (not even as &#27;), no byte
    // that is not UTF-8 and no U+FFFE/U+FFFF: a kernel's printf may give any of them, so they
    // are written escaped (\xHH) and the report stays well-formed.
    void student(std::size_t index, const std::string &student,
                 const std::vector<Result> &rows) override {
        const std::string path = (fs::path(dir_) / (files_[index] + ".xml")).string();
        std::error_code ec;
        bool all_kept = !rows.empty(), any_kept = false;
        for (const auto &r : rows) {
            all_kept &= r.kept;
            any_kept |= r.kept;
        }
        // The gradebook keeps a row's reason, not its commands and their output: those are in
        // the report already.
        if (all_kept && fs::is_regular_file(path, ec)) return;
        std::map<std::string, std::string> kept_cases;
        if (any_kept) {
            std::ifstream in(path, std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            for (auto &[lab, element] : junit_cases(text.str()))
                for (const auto &r : rows)
                    if (r.kept && r.lab == lab) kept_cases[lab] = element;
        }
        std::vector<Result> written = rows;
        for (auto &r : written) {
            r.student = shown(r.student);
            r.reason = shown_text(r.reason, true);
            r.details = shown_text(r.details, true);
        }
        write_junit(dir_, files_[index], shown(student), written, kept_cases);
    }

private:
    std::string dir_;
    std::vector<std::string> files_;
};

}  // namespace

std::unique_ptr<Record> open_junit_record(const RecordSettings &s) {
    if (s.junit.empty()) return nullptr;  // one submission's grading, no --junit
    return std::make_unique<JunitRecord>(s);
}

}  // namespace grade
