// The same shapes and inputs under every check, for every lab from its declaration alone: a kernel
// must not be able to tell a grading run from a race check by what it is fed, and behave only
// where each looks. Also the drawn counts (Declaration::draws) and the draws' key.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sys/stat.h>

#include "grade/draw_key.hpp"
#include "grade/labs.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using synclab::Args;

namespace {

std::vector<grade::Recipe> all_labs() {
    std::vector<std::string> problems;
    auto labs = grade::discover_labs(fs::path(test::lab("x")).parent_path().string(), &problems);
    for (const auto &p : problems) FAIL_CHECK(p);
    return labs;
}

std::string value_of(const Args &args, const std::string &flag) {
    const auto at = std::find(args.begin(), args.end(), flag);
    return at == args.end() || at + 1 == args.end() ? "" : *(at + 1);
}

// 17x9 -> {17, 9}; 32 -> {32, 1}.
std::pair<unsigned long, unsigned long> extent(const std::string &text) {
    const auto x = text.find('x');
    if (x == std::string::npos) return {std::stoul(text), 1};
    return {std::stoul(text.substr(0, x)), std::stoul(text.substr(x + 1))};
}

// A run's shape class: its work-group size or block as written ("default" where the lab picks),
// and whether it runs one group or several ("default" where that is the lab's to choose).
std::pair<std::string, std::string> shape_of(const Args &args) {
    std::string size = value_of(args, "--block");
    if (size.empty()) size = value_of(args, "--wg");
    const std::string groups = value_of(args, "--groups"), n = value_of(args, "-n"),
                      grid = value_of(args, "--grid");
    std::string count = "default";
    if (!groups.empty()) count = groups == "1" ? "one" : "several";  // 0 fills the device; {..} drawn
    else if (!n.empty() && !size.empty()) count = std::stoul(n) > std::stoul(size) ? "several" : "one";
    else if (!n.empty() && n == "1") count = "one";
    else if (!grid.empty() && !size.empty()) {
        const auto [gx, gy] = extent(grid);
        const auto [bx, by] = extent(size);
        count = (gx + bx - 1) / bx * ((gy + by - 1) / by) > 1 ? "several" : "one";
    }
    return {size.empty() ? "default" : size, count};
}

// The flags that take no value (--exact): what shapes the inputs, not the launch.
std::set<std::string> bare_flags(const Args &args) {
    std::set<std::string> out;
    for (std::size_t i = 0; i < args.size(); ++i)
        if (args[i].rfind("--", 0) == 0 && (i + 1 == args.size() || args[i + 1].rfind("-", 0) == 0))
            out.insert(args[i]);
    return out;
}

std::string shown(const std::pair<std::string, std::string> &s) { return s.first + "/" + s.second; }

}  // namespace

TEST_SUITE("conformance") {

TEST_CASE("every grading shape has a race-check twin and every race-check shape a grading twin") {
    for (const auto &lab : all_labs()) {
        CAPTURE(lab.executable);
        const auto &d = lab.declaration;
        std::set<std::pair<std::string, std::string>> graded, checked;
        for (const auto &args : d.grading) graded.insert(shape_of(args));
        for (const auto &args : d.race_checks) checked.insert(shape_of(args));
        for (const auto &s : graded) CHECK_MESSAGE(checked.count(s), "no race check of shape " << shown(s));
        for (const auto &s : checked) CHECK_MESSAGE(graded.count(s), "no grading run of shape " << shown(s));
        // A drawn race check runs beside its twin on the grading device: the same shape.
        REQUIRE(d.drawn_grading.size() == d.drawn_checks.size());
        for (std::size_t k = 0; k < d.drawn_checks.size(); ++k) {
            CAPTURE(d.drawn_checks[k]);
            CHECK(shape_of(d.drawn_checks[k]) == shape_of(d.drawn_grading[k]));
        }
    }
}

TEST_CASE("no input flag differs between a lab's grading runs, race checks, drawn sets and stress") {
    for (const auto &lab : all_labs()) {
        CAPTURE(lab.executable);
        const auto &d = lab.declaration;
        std::vector<Args> every = d.grading;
        for (const auto *sets : {&d.race_checks, &d.drawn_checks, &d.drawn_grading})
            every.insert(every.end(), sets->begin(), sets->end());
        if (!d.stress_args.empty()) every.push_back(d.stress_args);
        const std::set<std::string> first = bare_flags(every.front());
        for (const auto &args : every) {
            CAPTURE(args);
            CHECK(bare_flags(args) == first);
        }
    }
}

TEST_CASE("every drawn count reaches a grading run and a race check, groups past 8 all at once") {
    int drawn_labs = 0;
    for (const auto &lab : all_labs()) {
        CAPTURE(lab.executable);
        const auto &d = lab.declaration;
        CHECK(synclab::undeclared_draws(d).empty());
        drawn_labs += !d.draws.empty();
        for (const auto &w : d.draws) {
            CAPTURE(w.name);
            const std::string token = "{" + w.name + "}";
            auto uses = [&](const std::vector<Args> &sets) {
                return std::count_if(sets.begin(), sets.end(), [&](const Args &a) {
                    return std::find(a.begin(), a.end(), token) != a.end();
                });
            };
            CHECK(uses(d.grading) + uses(d.race_checks) >= 1);
            CHECK(uses(d.race_checks) >= 1);  // judged on Oclgrind (with hbcheck where groups meet)
            CHECK(w.high - w.low >= 7);  // a wide range: no count a kernel can wait out
            if (w.name == "groups") CHECK(w.low > 8);
        }
        // A drawn count of groups that meet on Oclgrind: each a worker of its own, all at once.
        for (const auto &args : d.race_checks)
            if (d.oclgrind_groups && value_of(args, "--groups").find('{') != std::string::npos)
                CHECK(value_of(args, "--oclgrind-threads") == value_of(args, "--groups"));
    }
    CHECK(drawn_labs >= 3);  // 07's groups, 09's steps and groups, 10's sweeps and groups
}

TEST_CASE("a submission's counts and drawn twin are a function of its text, the lab and the key") {
    for (const auto &lab : all_labs()) {
        if (lab.declaration.draws.empty()) continue;
        CAPTURE(lab.executable);
        const auto once = grade::drawn_counts(lab, "k", "kernel void a() {}");
        CHECK(grade::drawn_counts(lab, "k", "kernel void a() {}") == once);
        std::set<std::vector<unsigned>> seen;
        for (int i = 0; i < 40; ++i) {
            const auto c = grade::drawn_counts(lab, "key " + std::to_string(i), "kernel void a() {}");
            for (std::size_t w = 0; w < c.size(); ++w) {
                CHECK(c[w] >= lab.declaration.draws[w].low);
                CHECK(c[w] <= lab.declaration.draws[w].high);
            }
            seen.insert(c);
        }
        CHECK(seen.size() > 4);  // the key moves the draw
        const grade::Recipe r = grade::drawn_recipe(lab, "k", "kernel void a() {}");
        CHECK(r.declaration.draws.empty());
        CHECK(synclab::undeclared_draws(r.declaration).empty());
        CHECK(r.declaration.grading.size() == lab.declaration.grading.size() + 1);
        // The twin added is the one of the member race_checks_of draws.
        const auto member = grade::race_checks_of(r, "k", "kernel void a() {}").back();
        const auto at = std::find(r.declaration.drawn_checks.begin(), r.declaration.drawn_checks.end(), member);
        REQUIRE(at != r.declaration.drawn_checks.end());
        CHECK(r.declaration.grading.back() ==
              r.declaration.drawn_grading[static_cast<std::size_t>(at - r.declaration.drawn_checks.begin())]);
    }
}

}  // TEST_SUITE

TEST_SUITE("unit") {

TEST_CASE("the draw key beside a gradebook is made once, mode 0600, and read again, and without one it is fresh") {
    const fs::path dir = fs::temp_directory_path() / ("synclab-drawkey-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string csv = (dir / "g.csv").string();
    const grade::DrawKey first = grade::choose_draw_key("", "", csv);
    REQUIRE(fs::exists(grade::key_file_of(csv)));
    struct stat st {};
    REQUIRE(stat(grade::key_file_of(csv).c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    CHECK(first.key.size() == 64);
    CHECK(first.key.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(first.note.find("made now") != std::string::npos);
    CHECK(first.note.find(first.key) == std::string::npos);  // the log never shows the key
    const grade::DrawKey again = grade::choose_draw_key("", "", csv);  // a --resume, a re-grade
    CHECK(again.key == first.key);
    CHECK(again.note.find("made now") == std::string::npos);
    // No gradebook: a fresh key each time, and the note says so.
    const grade::DrawKey a = grade::choose_draw_key("", "", ""), b = grade::choose_draw_key("", "", "");
    CHECK(a.key != b.key);
    CHECK(a.note.find("fresh random key") != std::string::npos);
    // Given: as given, or from a file's first line.
    CHECK(grade::choose_draw_key("course", "", csv).key == "course");
    std::ofstream(dir / "k") << "instructor key  \nrest\n";
    CHECK(grade::choose_draw_key("", (dir / "k").string(), csv).key == "instructor key");
    std::ofstream(dir / "empty") << "\n";
    CHECK_THROWS_WITH(grade::choose_draw_key("", (dir / "empty").string(), ""), doctest::Contains("holds no key"));
    CHECK_THROWS_WITH(grade::choose_draw_key("", (dir / "none").string(), ""), doctest::Contains("draw key file"));
    fs::remove_all(dir);
}

TEST_CASE("a declaration's draws go through --describe, fill every argument list, and must be declared") {
    synclab::Declaration d{.dir = "42_x",
                           .summary = "",
                           .description = "",
                           .variants = {},
                           .grading = {{"--steps", "{steps}"}},
                           .race_checks = {{"--groups", "{groups}", "--oclgrind-threads", "{groups}"}},
                           .drawn_checks = {{"--wg", "8"}},
                           .drawn_grading = {{"--wg", "8", "--steps", "{steps}"}},
                           .draws = {{"steps", 20, 90}, {"groups", 9, 16}},
                           .stress_schedules = 2,
                           .stress_args = {"--steps", "{steps}"}};
    std::ostringstream out;
    synclab::describe(out, d);
    const auto back = synclab::parse_description(out.str());
    CHECK(back.drawn_grading == d.drawn_grading);
    REQUIRE(back.draws.size() == 2);
    CHECK((back.draws[1].name == "groups" && back.draws[1].low == 9 && back.draws[1].high == 16));
    const auto filled = synclab::with_draws(back, {33, 12});
    CHECK(filled.grading.front() == Args{"--steps", "33"});
    CHECK(filled.race_checks.front() == Args{"--groups", "12", "--oclgrind-threads", "12"});
    CHECK(filled.drawn_grading.front() == Args{"--wg", "8", "--steps", "33"});
    CHECK(filled.stress_args == Args{"--steps", "33"});
    CHECK(filled.draws.empty());
    CHECK_THROWS_WITH(synclab::parse_description("synclab-lab\t1\ndir\t42_x\ngrade\t--steps\t{steps}\n"),
                      doctest::Contains("no draw declares it"));
    CHECK_THROWS_WITH(synclab::parse_description("synclab-lab\t1\ndir\t42_x\ndraw\tsteps\t9\t3\n"),
                      doctest::Contains("LOW <= HIGH"));
}

}  // TEST_SUITE
