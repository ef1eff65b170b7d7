#!/usr/bin/env python3
"""For the classroom tests: checks a grading platform's results file and prints it flat.

  check_results.py SCHEMA FILE   FILE is JSON valid under the JSON schema SCHEMA
  check_results.py --junit FILE  FILE is a JUnit XML report

Prints one line per value, "path<TAB>value" (tests.0.name, testsuite.testcase.1.failure.message),
line breaks in a value written as \\n; exits 0. Exits 1 with one line when FILE is not valid,
2 when python3-jsonschema is not installed (apt-get install python3-jsonschema).
"""
import json
import sys
import xml.etree.ElementTree as ET


def flat(prefix, value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            flat(f"{prefix}.{k}" if prefix else k, v, out)
    elif isinstance(value, list):
        out.append(f"{prefix}.length\t{len(value)}")
        for i, v in enumerate(value):
            flat(f"{prefix}.{i}", v, out)
    else:
        text = value if isinstance(value, str) else json.dumps(value)
        out.append(f"{prefix}\t" + text.replace("\\", "\\\\").replace("\n", "\\n"))


def junit(path):
    root = ET.parse(path).getroot()
    suite = root.find("testsuite") if root.tag == "testsuites" else root
    if suite is None or suite.tag != "testsuite":
        raise ValueError("no <testsuite>")
    cases = []
    for case in suite.findall("testcase"):
        c = {"name": case.get("name", "")}
        failure = case.find("failure")
        if failure is not None:
            c["failure"] = {"type": failure.get("type", ""), "message": failure.get("message", "")}
        cases.append(c)
    return {"testsuite": {"name": suite.get("name", ""), "tests": suite.get("tests", ""),
                          "failures": suite.get("failures", ""), "testcase": cases}}


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        if argv[1] == "--junit":
            data = junit(argv[2])
        else:
            try:
                import jsonschema
            except ImportError:
                print("python3-jsonschema is not installed: apt-get install python3-jsonschema",
                      file=sys.stderr)
                return 2
            with open(argv[1], encoding="utf-8") as f:
                schema = json.load(f)
            with open(argv[2], "rb") as f:
                data = json.loads(f.read().decode("utf-8"))  # strict: UTF-8 or nothing
            jsonschema.validate(data, schema, cls=jsonschema.Draft7Validator)
    except (OSError, ValueError, ET.ParseError) as e:
        print(f"{argv[2]}: {e}".splitlines()[0], file=sys.stderr)
        return 1
    except Exception as e:  # jsonschema.ValidationError
        print(f"{argv[2]}: {type(e).__name__}: {getattr(e, 'message', e)}".splitlines()[0],
              file=sys.stderr)
        return 1
    out = []
    flat("", data, out)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
