#!/usr/bin/env python3
"""The module graph in docs/development.md, made from Package.swift.

    scripts/module-graph.py           print the graph
    scripts/module-graph.py --write   write it into docs/development.md
    scripts/module-graph.py --check   fail when the document and Package.swift differ (CI)

Each line is a module of the package (not its tests) and the package's own modules it
depends on; outside packages are left out.
"""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "development.md"
BEGIN = "<!-- module graph: made by scripts/module-graph.py from Package.swift -->"
END = "<!-- end of module graph -->"


def graph() -> str:
    dumped = subprocess.run(
        ["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    package = json.loads(dumped)
    targets = [t for t in package["targets"] if t["type"] in ("regular", "executable", "system")]
    names = {t["name"] for t in targets}
    lines = []
    for target in targets:
        uses = []
        for dependency in target["dependencies"]:
            kind, value = next(iter(dependency.items()))
            name = value[0]
            if kind in ("byName", "target") and name in names:
                uses.append(name)
        lines.append(f"{target['name']:<20} → {', '.join(sorted(uses)) if uses else '(nothing of the package)'}")
    return "```\n" + "\n".join(lines) + "\n```"


def main() -> int:
    made = graph()
    if "--write" not in sys.argv and "--check" not in sys.argv:
        print(made)
        return 0
    text = DOC.read_text()
    if BEGIN not in text or END not in text:
        print(f"{DOC} has no module graph block ({BEGIN} … {END})", file=sys.stderr)
        return 1
    head, rest = text.split(BEGIN, 1)
    written, tail = rest.split(END, 1)
    if "--write" in sys.argv:
        DOC.write_text(head + BEGIN + "\n" + made + "\n" + END + tail)
        return 0
    if written.strip() != made.strip():
        print("docs/development.md's module graph differs from Package.swift; run scripts/module-graph.py --write")
        print("Package.swift says:\n" + made)
        return 1
    print("the module graph in docs/development.md matches Package.swift")
    return 0


if __name__ == "__main__":
    sys.exit(main())
