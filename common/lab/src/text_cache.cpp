// The children of one submission's grading share what they preprocessed and judged
// (text_cache.hpp).
#include "text_cache.hpp"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

#include "synclab/protocol.hpp"

namespace fs = std::filesystem;

namespace synclab::text_cache {

// The children of one grading share what they preprocessed (SYNCLAB_TEXT_CACHE, a folder of
// their job): each entry holds its whole key, so only the same build finds it. A child could
// write a false one, as it could write a false verdict: the cache trusts no more than that.
namespace {

std::string cache_file(const std::string &kind, const std::string &key) {
    const char *dir = std::getenv(protocol::kTextCache);
    if (!dir || !*dir) return "";
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a: a name, not a check
    for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
    std::error_code ec;
    fs::create_directories(dir, ec);
    return std::string(dir) + "/" + kind + "-" + std::to_string(h);
}

}  // namespace

bool cached(const std::string &kind, const std::string &key, std::string &value) {
    const std::string file = cache_file(kind, key);
    if (file.empty()) return false;
    std::ifstream in(file, std::ios::binary);
    std::string size;
    if (!in || !std::getline(in, size) || size.empty() || size.size() > 12 ||
        size.find_first_not_of("0123456789") != std::string::npos)
        return false;
    std::string stored(std::stoull(size), '\0');
    if (!in.read(&stored[0], static_cast<std::streamsize>(stored.size())) || stored != key) return false;
    value.assign(std::istreambuf_iterator<char>(in), {});
    return true;
}

void keep(const std::string &kind, const std::string &key, const std::string &value) {
    const std::string file = cache_file(kind, key);
    if (file.empty()) return;
    const std::string part = file + "." + std::to_string(getpid());
    {
        std::ofstream out(part, std::ios::binary | std::ios::trunc);
        out << key.size() << "\n" << key << value;
        if (!out) return;
    }
    std::error_code ec;
    fs::rename(part, file, ec);  // whole or not at all
}

}  // namespace synclab::text_cache
