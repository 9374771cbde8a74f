#!/usr/bin/env python3
"""Checks a gtk-doc build of the API reference; `./run docs` runs it.

usage: check-reference.py DOC_BUILD_DIR BUILD_LOG

Fails (exit 1, naming what is wrong) when gtk-doc reports a symbol
undocumented or incomplete (a parameter, field or value without a
description), a declaration in no section or a comment for no
declaration, a symbol without `Since:`, or any warning of its own in the
build log. The one kind of warning let through is an unresolved link to
a name outside zkr (GLib's, GIO's, json-glib's, libzookeeper's):
whether those resolve depends on which -doc packages the machine has,
not on zkr's comments. An unresolved link to a zkr name fails.
"""
import pathlib
import re
import sys

OUR_LINK = re.compile(r'no link for: "(zkr|Zkr|ZKR|api-index)', re.I)


def main():
    doc_dir, log_path = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    problems = []

    summary = (doc_dir / "zkr-undocumented.txt").read_text().splitlines()
    counts = {}
    for line in summary[:5]:
        m = re.match(r"(\d+) (symbols documented|symbols incomplete|not documented)", line)
        if m:
            counts[m.group(2)] = int(m.group(1))
    if counts.get("symbols incomplete") != 0 or counts.get("not documented") != 0:
        problems.append("undocumented or incomplete symbols:\n  "
                        + "\n  ".join(l for l in summary if l.strip()))
    for name in ("zkr-unused.txt", "zkr-undeclared.txt"):
        text = (doc_dir / name).read_text().strip()
        if text:
            problems.append(f"{name}: {text}")

    # Every symbol's entry (a refsect2 with a role) must carry its Since.
    symbols = 0
    for xml in sorted((doc_dir / "xml").glob("*.xml")):
        for m in re.finditer(r'<refsect2 id="([^"]+)" role="[^"]+"(.*?)</refsect2>',
                             xml.read_text(), flags=re.S):
            symbols += 1
            if 'role="since"' not in m.group(2):
                problems.append(f"{xml.name}: {m.group(1)} has no Since:")

    warnings = [l for l in log_path.read_text(errors="replace").splitlines()
                if "warning" in l.lower()
                and ("no link for" not in l or OUR_LINK.search(l))]
    if warnings:
        problems.append("gtk-doc warnings:\n  " + "\n  ".join(warnings))

    if problems:
        print("\n".join(problems))
        print(f"docs: FAILED ({len(problems)} problem(s))")
        return 1
    print(f"docs: {counts.get('symbols documented', 0)} symbols documented, "
          f"{symbols} reference entries with Since:, 0 undocumented, no warnings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
