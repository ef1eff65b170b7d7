#!/usr/bin/env python3
"""Rewrites each starter (kernels/NN_topic.cl) from its solution (solutions/NN_topic.cl).

Given code is written once, in the solution. The two files differ only in
  - the regions a student writes, each between the lines
        // ---- your code ----
        // ---- end of your code ----
    (the solution's code there, the starter's TODO text and any placeholder there);
  - line 1, "// Lab NN (solution): ..." in the one and "// Lab NN (starter): ..." in the other;
  - the starter's "Your task" paragraph: a comment paragraph whose first line begins
    "// Your task:", with the "//" or blank line just before it.
A starter is rewritten as the solution with the starter's own regions and "Your task" paragraph
put back, so a change to given code is made in the solution and then:

    scripts/starters.py            # rewrite every starter that differs, and say which
    scripts/starters.py --check    # rewrite nothing; exit 1 naming each starter that differs
    scripts/starters.py 07 09      # only these labs

tests/starters_tests.cpp checks the same rules on every lab (`synclab_tests -tc='*starter*'`).
"""
import difflib
import os
import re
import sys

BEGIN = "// ---- your code ----"
END = "// ---- end of your code ----"
TASK = "// Your task:"


class Problem(Exception):
    pass


def split(lines, name):
    """The given chunks (marker lines included) and the regions between them: given has one more
    element than regions."""
    given, regions = [[]], []
    inside = None  # the line number of the open BEGIN
    for n, line in enumerate(lines, 1):
        mark = line.strip()
        if mark == BEGIN:
            if inside:
                raise Problem(f"{name}:{n}: a region opened inside the one opened at line {inside}")
            given[-1].append(line)
            regions.append([])
            inside = n
        elif mark == END:
            if not inside:
                raise Problem(f"{name}:{n}: a region closed that was never opened")
            given.append([line])
            inside = None
        elif inside:
            regions[-1].append(line)
        else:
            given[-1].append(line)
    if inside:
        raise Problem(f"{name}:{inside}: a region never closed")
    return given, regions


def take_task(lines, name):
    """The starter without its "Your task" paragraph, the paragraph (its separator first), and
    the line the paragraph followed (None when there is none)."""
    starts = [i for i, l in enumerate(lines) if l.startswith(TASK)]
    if not starts:
        return lines, [], None
    if len(starts) > 1:
        raise Problem(f"{name}:{starts[1] + 1}: a second \"Your task\" paragraph")
    i = starts[0]
    if any(l.strip() == BEGIN for l in lines[:i]):
        raise Problem(f"{name}:{i + 1}: \"Your task\" must come before the first region")
    if i == 0 or lines[i - 1] not in ("//", ""):
        raise Problem(f"{name}:{i + 1}: \"Your task\" must follow a \"//\" or blank line")
    j = i + 1
    while j < len(lines) and lines[j].startswith("// "):
        j += 1
    after = lines[i - 2] if i >= 2 else None
    return lines[:i - 1] + lines[j:], lines[i - 1:j], after


def role(line, frm, to):
    return line.replace(f"({frm})", f"({to})", 1)


def derive(solution, starter, sname, kname):
    """The starter as it must be: the solution's given code, the starter's regions and task."""
    body, task, after = take_task(starter, kname)
    sgiven, sregions = split(solution, sname)
    kgiven, kregions = split(body, kname)
    if len(sregions) != len(kregions):
        raise Problem(f"{kname} has {len(kregions)} regions, {sname} {len(sregions)}: add or "
                      "remove the region in the starter by hand (its TODO text is the starter's "
                      "own), then run again")
    out = list(sgiven[0])
    for region, chunk in zip(kregions, sgiven[1:]):
        out += region + chunk
    if out and out[0]:
        out[0] = role(out[0], "solution", "starter")
    if task:
        # Back after the line it followed, which must be once in the solution's opening lines.
        at = [k for k in range(len(sgiven[0])) if out[k] == after]
        if len(at) != 1:
            raise Problem(f"{kname}: the line before \"Your task\" ({after!r}) is not once in "
                          f"{sname}'s lines before its first region: put the paragraph back by "
                          "hand, then run again")
        out = out[:at[0] + 1] + task + out[at[0] + 1:]
    return out


def read(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def main(argv):
    check = "--check" in argv
    wanted = [a for a in argv if a != "--check"]
    if any(a.startswith("-") for a in wanted):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    labs = sorted(d for d in os.listdir("labs") if re.fullmatch(r"\d\d_.+", d)
                  and os.path.isfile(f"solutions/{d}.cl") and os.path.isfile(f"kernels/{d}.cl"))
    if wanted:
        labs = [d for d in labs if d[:2] in wanted or d in wanted]
    bad = 0
    for lab in labs:
        sname, kname = f"solutions/{lab}.cl", f"kernels/{lab}.cl"
        starter = read(kname)
        try:
            want = derive(read(sname), starter, sname, kname)
        except Problem as e:
            print(f"starters: {e}", file=sys.stderr)
            bad += 1
            continue
        if want == starter:
            continue
        if check:
            for n, (a, b) in enumerate(zip(starter + [None] * len(want), want + [None] * len(starter)), 1):
                if a != b:
                    break
            print(f"starters: {kname}:{n} differs from what {sname} gives:", file=sys.stderr)
            sys.stderr.writelines(l + "\n" for l in difflib.unified_diff(
                starter, want, kname, f"{kname} (from {sname})", n=1, lineterm=""))
            bad += 1
        else:
            with open(kname, "w", encoding="utf-8") as f:
                f.write("\n".join(want) + "\n")
            print(f"starters: rewrote {kname}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
