#include "synclab/subgroup_part.hpp"

namespace synclab {

std::string SubgroupPart::not_checked() const {
    if (support.builtins)
        return "not checked at --wg " + std::to_string(wg) + " (" + support.smallest_wg_why +
               "): compiles; use a larger --wg";
    return "not checked on this device (" + support.why_not + "): compiles";
}

SubgroupPart build_subgroup_part(const Lab &lab, const std::string &options, std::size_t wg) {
    SubgroupPart p;
    p.support = subgroup_support(lab.env.info.device);
    p.wg = wg;
    const std::string with = options + " -D WITH_SUBGROUPS ";
    if (p.support.builtins) {
        p.program = lab.program(with + p.support.build_options);
        p.runs = wg >= p.support.smallest_wg;
        return p;
    }
    try {
        lab.check_compiles(with + subgroup_standin_options());
    } catch (const BuildError &e) {
        const std::string note = " (in the WITH_SUBGROUPS part, compiled against stand-ins for "
                                 "the sub-group built-ins, which this device lacks)";
        throw BuildError(e.what() + note, e.where, e.first_error + note, e.log);
    }
    return p;
}

}  // namespace synclab
