// The draws' key (draw_key.hpp): given, read from a file, kept beside the gradebook, or fresh.
#include "draw_key.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "synclab/errors.hpp"
#include "synclab/protocol.hpp"  // read_plain

using synclab::UsageError;

namespace grade {

namespace {

constexpr std::size_t kMaxKey = 256;  // as --draw-key

// The key a key file holds: its first line, trailing blanks dropped.
std::string read_key_file(const std::string &path, const std::string &fix) {
    std::string text, why;
    if (!synclab::protocol::read_plain(path, 4096, text, why))
        throw UsageError("the draw key file " + path + " is " + why + ": " + fix);
    text = text.substr(0, text.find('\n'));
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) text.pop_back();
    if (text.empty() || text.size() > kMaxKey)
        throw UsageError("the draw key file " + path + " holds no key (one line of 1 to 256 characters): " + fix);
    return text;
}

// Makes `path` with a new key, readable by its owner alone; false when it is there already (made
// by a grader beside us: then it is read).
bool make_key_file(const std::string &path, const std::string &key) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == EEXIST) return false;
        throw UsageError("cannot make the draw key file " + path + " (" + std::strerror(errno) +
                         "): give --draw-key-file FILE, or a --csv in a folder you may write");
    }
    const std::string line = key + "\n";
    const bool ok = fchmod(fd, 0600) == 0 && write(fd, line.data(), line.size()) == ssize_t(line.size()) &&
                    fsync(fd) == 0;
    close(fd);
    if (!ok) {
        unlink(path.c_str());
        throw UsageError("cannot write the draw key file " + path + ": give --draw-key-file FILE");
    }
    return true;
}

}  // namespace

std::string key_file_of(const std::string &csv) {
    // One a folder: the shards of a class, gradebooks side by side, draw with one key.
    const std::filesystem::path folder = std::filesystem::path(csv).parent_path();
    return (folder.empty() ? std::filesystem::path("synclab.draw-key") : folder / "synclab.draw-key").string();
}

std::string random_key() {
    unsigned char bytes[32];
    const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    std::size_t got = 0;
    while (fd >= 0 && got < sizeof bytes) {
        const ssize_t n = read(fd, bytes + got, sizeof bytes - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    if (fd >= 0) close(fd);
    if (got < sizeof bytes) throw std::runtime_error("cannot read 32 bytes of /dev/urandom for the draw key");
    static const char *hex = "0123456789abcdef";
    std::string out;
    for (unsigned char b : bytes) out += {hex[b >> 4], hex[b & 15]};
    return out;
}

DrawKey choose_draw_key(const std::string &given, const std::string &file, const std::string &csv) {
    if (!given.empty()) return {given, ""};
    if (!file.empty())
        return {read_key_file(file, "give a file whose first line is the course's key"),
                "note: the drawn checks are keyed by " + file};
    if (csv.empty())
        return {random_key(), "note: the drawn checks use a fresh random key (no --csv, no --draw-key): "
                              "another grading of the same files may draw other checks"};
    const std::string path = key_file_of(csv);
    std::error_code ec;  // the gradebook's folder, made as writing the gradebook would make it
    const auto folder = std::filesystem::path(path).parent_path();
    if (!folder.empty()) std::filesystem::create_directories(folder, ec);
    const bool made = make_key_file(path, random_key());
    return {read_key_file(path, "delete it to have a new key made (then --restart the gradebook), "
                                "or give --draw-key-file FILE"),
            "note: the drawn checks are keyed by " + path + (made ? " (made now: keep it private)" : "")};
}

}  // namespace grade
