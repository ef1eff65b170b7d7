#!/usr/bin/env python3
"""Writes each starter (kernels/NN_topic.cl) from its master, the solution (solutions/NN_topic.cl).

The master is the solution, compiled and graded as it is, holding the starter's text too:
  - each part a student writes is, in the master,
        // ---- starter ----
        // TODO (3 lines): ...          the starter's lines there: comments and blanks as they are,
        //| return 0.0f;                code (a placeholder) after "//| ", at the code's indent
        // ---- your code ----
        ...                             the solution's code
        // ---- end of your code ----
    and in the starter the same region with the starter's lines in it, decoded;
  - line 1 says "(solution)" where the starter's says "(starter)";
  - the "Your task" paragraph (a comment paragraph beginning "// Your task:") is in both as it is.
Everything else is given code, copied. The starter's text sits above the region, not in it, as
a TODO in a region marks the part unwritten (common/lab's todo.cpp): the solution's is written.

    scripts/starters.py            # write every starter that differs, and say which
    scripts/starters.py --check    # write nothing; exit 1 naming each starter that differs
    scripts/starters.py 07 09      # only these labs

Both also check every master: each region has a starter block with a TODO, and a TODO's line
count, "TODO (3 lines)" or "TODO (about 20 lines)", is the lines of code the solution's part adds
("about N": within a quarter of N or 2 lines; a region whose TODO counts fixes is not counted).
tests/starters_tests.cpp runs --check (docs/adding-a-lab.md).
"""
import difflib
import os
import re
import sys

STARTER = "// ---- starter ----"
BEGIN = "// ---- your code ----"
END = "// ---- end of your code ----"
CODE = re.compile(r"(\s*)//\| (.*)")  # a starter's line of code, kept as a comment


class Problem(Exception):
    pass


def code_of(line):
    t = line.strip()
    return t and not t.startswith("//")


def parse(lines, name):
    """The master cut at its markers: the lines both files share (markers included) as chunks,
    and each region's starter lines (decoded), solution lines and first line number."""
    given, regions = [[]], []
    state, at = "given", 0  # "given", "starter" or "solution"; the line that opened the state
    for n, line in enumerate(lines, 1):
        mark = line.strip()
        if mark == STARTER:
            if state != "given":
                raise Problem(f"{name}:{n}: a starter block inside the region begun at line {at}")
            state, at = "starter", n
            regions.append({"line": n, "starter": [], "solution": []})
        elif mark == BEGIN:
            if state != "starter":
                raise Problem(f"{name}:{n}: a region without its \"{STARTER}\" block just above "
                              "(the starter's TODO text for it)" if state == "given" else
                              f"{name}:{n}: a region begun inside the one begun at line {at}")
            given[-1].append(line)
            state = "solution"
        elif mark == END:
            if state != "solution":
                raise Problem(f"{name}:{n}: a region ends that never began")
            given.append([line])
            state = "given"
        elif state == "starter":
            m = CODE.fullmatch(line)
            if not m and code_of(line):
                raise Problem(f"{name}:{n}: code in a starter block: write the starter's code "
                              "as \"//| CODE\" at its indent")
            regions[-1]["starter"].append(m[1] + m[2] if m else line)
        elif state == "solution":
            regions[-1]["solution"].append(line)
        else:
            given[-1].append(line)
    if state != "given":
        raise Problem(f"{name}:{at}: a region never ends")
    if not regions:
        raise Problem(f"{name}: no region for the student (\"{STARTER}\", \"{BEGIN}\", \"{END}\")")
    return given, regions


def promised(starter):
    """The lines a region's TODOs promise, whether "about", and whether any TODO counts fixes."""
    lines, about, counted, fixes = 0, False, False, False
    for line in starter:
        for inside in re.findall(r"TODO \(([^)]*)", line):
            c = re.search(r"(about )?(\d+) (lines?|fix(es)?)\b", inside)
            if not c:
                continue
            if c[3].startswith("fix"):
                fixes = True
                continue
            counted, about, lines = True, about or bool(c[1]), lines + int(c[2])
    return lines, about, counted and not fixes


def count_problems(regions, name):
    """Each region whose starter has no TODO, or whose TODO's count is not what it adds."""
    out = []
    for r in regions:
        where = f"{name}:{r['line']}"
        if not any("TODO" in l for l in r["starter"]):
            out.append(f"{where}: the starter block has no TODO saying what to write")
            continue
        want, about, counted = promised(r["starter"])
        if not counted:
            continue
        held = {l.strip() for l in r["starter"]}
        n = sum(1 for l in r["solution"] if code_of(l) and l.strip() not in held)
        if (abs(n - want) > max(2, want // 4)) if about else n != want:
            out.append(f"{where}: the TODO says {'about ' if about else ''}{want} lines; the "
                       f"solution's part adds {n} lines of code")
    return out


def generate(master, name):
    """The starter the master gives, and the problems its counts have."""
    given, regions = parse(master, name)
    out = list(given[0])
    for r, chunk in zip(regions, given[1:]):
        out += r["starter"] + chunk
    if out and out[0]:
        out[0] = out[0].replace("(solution)", "(starter)", 1)
    return out, count_problems(regions, name)


def read(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def first_difference(a, b):
    for n, (x, y) in enumerate(zip(a + [None] * len(b), b + [None] * len(a)), 1):
        if x != y:
            return n
    return 0


def main(argv):
    check = "--check" in argv
    wanted = [a for a in argv if a != "--check"]
    if any(a.startswith("-") for a in wanted):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    labs = sorted(d for d in os.listdir("labs") if re.fullmatch(r"\d\d_.+", d)
                  and os.path.isfile(f"solutions/{d}.cl"))
    if wanted:
        labs = [d for d in labs if d[:2] in wanted or d in wanted]
    bad = 0
    for lab in labs:
        sname, kname = f"solutions/{lab}.cl", f"kernels/{lab}.cl"
        try:
            want, problems = generate(read(sname), sname)
        except Problem as e:
            print(f"starters: {e}", file=sys.stderr)
            bad += 1
            continue
        for p in problems:
            print(f"starters: {p}", file=sys.stderr)
        bad += bool(problems)
        starter = read(kname) if os.path.isfile(kname) else None
        if want == starter:
            continue
        if check:
            if starter is None:
                print(f"starters: {kname} is missing: run scripts/starters.py", file=sys.stderr)
            else:
                n = first_difference(starter, want)
                print(f"starters: {kname}:{n} differs from what {sname} gives (edit the master, "
                      "then run scripts/starters.py):", file=sys.stderr)
                sys.stderr.writelines(l + "\n" for l in difflib.unified_diff(
                    starter, want, kname, f"{kname} (from {sname})", n=1, lineterm=""))
            bad += 1
        else:
            with open(kname, "w", encoding="utf-8") as f:
                f.write("\n".join(want) + "\n")
            print(f"starters: {'wrote' if starter is None else 'rewrote'} {kname}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
