// What a submission hands in (submission_files.hpp).
#include "submission_files.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <map>
#include <tuple>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox.hpp"  // kMaxSubmissionFile

namespace fs = std::filesystem;

namespace grade {
namespace {

// FIPS 180-4, section 6.2.
constexpr std::array<std::uint32_t, 64> kK = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(std::array<std::uint32_t, 8> &h, const unsigned char *block) {
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i)
        w[i] = std::uint32_t(block[4 * i]) << 24 | std::uint32_t(block[4 * i + 1]) << 16 |
               std::uint32_t(block[4 * i + 2]) << 8 | std::uint32_t(block[4 * i + 3]);
    for (int i = 16; i < 64; ++i) {
        const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; ++i) {
        const std::uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kK[i] + w[i];
        const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d;
    h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

bool kernel_source(const std::string &name) {
    const std::string ext = fs::path(name).extension().string();
    return ext == ".cl" || ext == ".h" || ext == ".clh";
}

// Bounds on a walk through a submission: a folder tree the grader may not spend long on.
constexpr int kMaxDepth = 16;
constexpr std::size_t kMaxEntries = 20000;

// At most `most` bytes of a plain file, never waiting on a FIFO swapped in for it; false when
// it is not one.
bool read_prefix(const std::string &path, std::size_t most, std::string &out, off_t *size) {
    const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    const bool plain = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (size) *size = st.st_size;
    out.clear();
    char buf[65536];
    while (plain && out.size() < most) {
        const ssize_t got = read(fd, buf, std::min(sizeof buf, most - out.size()));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        out.append(buf, static_cast<std::size_t>(got));
    }
    close(fd);
    return plain;
}

// One entry's part of a hash: its name, then what grading would read of it.
std::string entry_text(const std::string &name, const std::string &path) {
    std::error_code ec;
    const auto type = fs::symlink_status(path, ec).type();
    std::string out = name + '\0';
    if (type == fs::file_type::symlink) return out + "link" + '\0' + fs::read_symlink(path, ec).string() + '\0';
    if (type != fs::file_type::regular) return out + "type " + std::to_string(int(type)) + '\0';
    std::string text;
    off_t size = 0;
    if (!read_prefix(path, kMaxSubmissionFile + 1, text, &size)) return out + "unreadable" + '\0';
    if (text.size() > kMaxSubmissionFile) return out + "large " + std::to_string(size) + '\0';
    return out + "file " + std::to_string(text.size()) + '\0' + text;
}

}  // namespace

std::string sha256_hex(const std::string &data) {
    std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    std::size_t i = 0;
    for (; i + 64 <= data.size(); i += 64) compress(h, reinterpret_cast<const unsigned char *>(data.data()) + i);
    unsigned char last[128] = {};
    const std::size_t rest = data.size() - i;
    std::copy(data.begin() + static_cast<std::ptrdiff_t>(i), data.end(), last);
    last[rest] = 0x80;
    const std::size_t blocks = rest + 9 > 64 ? 2 : 1;
    const std::uint64_t bits = std::uint64_t(data.size()) * 8;
    for (int b = 0; b < 8; ++b) last[blocks * 64 - 1 - b] = static_cast<unsigned char>(bits >> (8 * b));
    for (std::size_t b = 0; b < blocks; ++b) compress(h, last + 64 * b);
    std::string hex;
    char buf[9];
    for (std::uint32_t v : h) {
        std::snprintf(buf, sizeof buf, "%08x", v);
        hex += buf;
    }
    return hex;
}

std::vector<HandedIn> find_handed_in(const std::string &dir) {
    std::vector<HandedIn> all;
    std::vector<std::pair<std::string, int>> folders{{dir, 0}};
    std::size_t seen = 0;
    while (!folders.empty() && seen < kMaxEntries) {
        const auto [folder, depth] = folders.back();
        folders.pop_back();
        std::error_code ec;
        for (const auto &e : fs::directory_iterator(folder, ec)) {
            if (++seen > kMaxEntries) break;
            const std::string name = e.path().filename().string();
            const auto type = e.symlink_status(ec).type();  // links never followed
            if (type == fs::file_type::directory && name != "__MACOSX" && depth < kMaxDepth)
                folders.push_back({e.path().string(), depth + 1});
            else if (type == fs::file_type::regular && kernel_source(name) && name.rfind("._", 0) != 0)
                all.push_back({name, e.path().string(), depth});
        }
    }
    std::sort(all.begin(), all.end(), [](const HandedIn &a, const HandedIn &b) {
        return std::tie(a.depth, a.path) < std::tie(b.depth, b.path);
    });
    std::vector<HandedIn> out;
    std::map<std::string, bool> taken;
    for (auto &f : all)
        if (!taken[f.name]) {
            taken[f.name] = true;
            out.push_back(std::move(f));
        }
    std::sort(out.begin(), out.end(), [](const HandedIn &a, const HandedIn &b) { return a.name < b.name; });
    return out;
}

bool needs_gathering(const std::vector<HandedIn> &found, const std::string &direct,
                     const std::vector<std::string> &known) {
    for (const auto &f : found)
        if (std::find(known.begin(), known.end(), f.name) != known.end() &&
            fs::path(f.path).parent_path() != fs::path(direct))
            return true;
    return false;
}

bool gather_handed_in(const std::vector<HandedIn> &found, const std::string &to) {
    std::error_code ec;
    fs::remove_all(to, ec);
    if (!fs::create_directories(to, ec)) return false;
    for (const auto &f : found) {
        std::string text;
        if (!read_prefix(f.path, kMaxSubmissionFile + 1, text, nullptr)) continue;
        const std::string path = (fs::path(to) / f.name).string();
        const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) return false;
        bool ok = true;
        for (std::size_t done = 0; ok && done < text.size();) {
            const ssize_t w = write(fd, text.data() + done, text.size() - done);
            if (w < 0 && errno == EINTR) continue;
            ok = w > 0;
            done += ok ? static_cast<std::size_t>(w) : 0;
        }
        if (close(fd) != 0 || !ok) return false;
    }
    return true;
}

std::string files_sha256(const std::string &dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (kernel_source(name) && names.size() < kMaxEntries) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    std::string all = ec ? std::string("unreadable") + '\0' : "";
    for (const auto &name : names) all += entry_text(name, (fs::path(dir) / name).string());
    return sha256_hex(all);
}

std::string files_sha256(const std::vector<HandedIn> &found) {
    std::string all = std::string("gathered") + '\0';
    for (const auto &f : found) all += entry_text(f.name, f.path);
    return sha256_hex(all);
}

std::vector<Misnamed> misnamed_files(const std::vector<HandedIn> &found,
                                     const std::vector<std::pair<std::string, std::string>> &labs) {
    std::vector<Misnamed> out;
    for (const auto &f : found) {
        if (fs::path(f.name).extension() != ".cl") continue;
        const bool known = std::any_of(labs.begin(), labs.end(), [&](const auto &l) { return l.second == f.name; });
        if (known) continue;
        // The first number in the name picks the lab it was meant for: lab5.cl, Lab_05.cl.
        const auto at = f.name.find_first_of("0123456789");
        const auto end = f.name.find_first_not_of("0123456789", at == std::string::npos ? 0 : at);
        const std::string digits = at == std::string::npos ? "" : f.name.substr(at, end - at);
        const long number = digits.empty() || digits.size() > 3 ? -1 : std::stol(digits);
        const auto lab = std::find_if(labs.begin(), labs.end(), [&](const auto &l) {
            return number >= 0 && std::stol(l.first) == number;
        });
        if (lab != labs.end())
            out.push_back({lab->first, f.name + " is named as no lab: rename it " + lab->second});
        else
            out.push_back({"", f.name + " is named as no lab: name each file as in kernels/ (" +
                                   (labs.empty() ? std::string("NN_topic.cl") : labs.front().second) + ", ...)"});
    }
    return out;
}

}  // namespace grade
