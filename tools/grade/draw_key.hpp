// The key of a grading's draws (each lab's drawn race check and drawn counts, labs.hpp): private
// by default, so no student can compute what their submission will meet.
#pragma once
#include <string>

namespace grade {

struct DrawKey {
    std::string key;
    std::string note;  // one line for the log: where the key came from (never the key)
};

// --draw-key TEXT; else the first line of --draw-key-file FILE; else, with a gradebook (`csv`),
// the key file beside it (key_file_of): read, or made once with a random key (mode 0600), so a
// --resume draws as the grading it resumes; else a fresh random key for this grading alone.
// Throws UsageError (one line) for a key file that cannot be read or made, or holds no key.
DrawKey choose_draw_key(const std::string &given, const std::string &file, const std::string &csv);

// The key file of a gradebook: synclab.draw-key in the gradebook's folder (shared by the shards
// of a class whose gradebooks lie side by side).
std::string key_file_of(const std::string &csv);

// 32 bytes of /dev/urandom as 64 hex digits.
std::string random_key();

}  // namespace grade
