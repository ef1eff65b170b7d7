// For the labs whose work-groups wait for one another across the device (09, 10): a barrier
// between groups that gave up is tried once more before its give-up counts.
#pragma once
#include <string>
#include <utility>

namespace synclab {

// A busy host can keep a resident group's thread off its core past a wait's whole budget: one
// that has not arrived yet, or the group that releases the others after all arrived. So a
// give-up counts only when a second try gives up too: a barrier that loses an arrival or a
// release gives up every time, and one that lets a group through gives a wrong answer, which is
// never tried again. once() returns an outcome with `gave_up` and `stalled_before`; text(o)
// says what the first try did.
template <class Once, class Text>
auto tried_twice(Once once, Text text) {
    auto o = once();
    if (!o.gave_up) return o;
    std::string first = text(o);
    o = once();
    o.stalled_before = std::move(first);
    return o;
}

// What an outcome verified on the second try says of the first (`stalled_before`).
inline std::string verified_on_second_try(const std::string &first) {
    return "verified on a second try (the first: " + first + "; a busy host?)";
}

}  // namespace synclab
