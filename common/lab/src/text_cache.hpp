// For program_text.cpp alone: the cache the children of one submission's grading share
// (SYNCLAB_TEXT_CACHE, a folder of their job): the program texts and their judgements.
#pragma once
#include <string>

namespace synclab::text_cache {

// The value kept under `kind` and the whole of `key`; false when there is none (or no cache).
bool cached(const std::string &kind, const std::string &key, std::string &value);
// Keeps `value` under `kind` and `key`, whole or not at all.
void keep(const std::string &kind, const std::string &key, const std::string &value);

}  // namespace synclab::text_cache
