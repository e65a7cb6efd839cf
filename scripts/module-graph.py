#!/usr/bin/env python3
"""The module graph in docs/development.md, made from Package.swift.

    scripts/module-graph.py           print the graph
    scripts/module-graph.py --write   write it into docs/development.md
    scripts/module-graph.py --check   fail when the document and Package.swift differ, or
                                      when a module's sources and its declared
                                      dependencies disagree (CI)

Each line is a module of the package (not its tests) and the package's own modules it
depends on; outside packages are left out. The check also reads each module's
`import` lines: a declared dependency of the package that no file imports is one too
many, and a module of the package imported without being declared is one too few.
"""
import re
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "development.md"
BEGIN = "<!-- module graph: made by scripts/module-graph.py from Package.swift -->"
END = "<!-- end of module graph -->"


def modules() -> list[tuple[dict, list[str]]]:
    """Each module of the package (not its tests) with the package's modules it declares."""
    dumped = subprocess.run(
        ["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    package = json.loads(dumped)
    targets = [t for t in package["targets"] if t["type"] in ("regular", "executable", "system")]
    names = {t["name"] for t in targets}
    found = []
    for target in targets:
        uses = []
        for dependency in target["dependencies"]:
            kind, value = next(iter(dependency.items()))
            name = value[0]
            if kind in ("byName", "target") and name in names:
                uses.append(name)
        found.append((target, sorted(uses)))
    return found


def graph(found: list[tuple[dict, list[str]]]) -> str:
    lines = [f"{t['name']:<20} → {', '.join(uses) if uses else '(nothing of the package)'}" for t, uses in found]
    return "```\n" + "\n".join(lines) + "\n```"


IMPORT = re.compile(
    r"^[ \t]*(?:@\w+[ \t]+)*(?:(?:public|package|internal|fileprivate|private)[ \t]+)?import[ \t]+"
    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func)[ \t]+)?(\w+)",
    re.M,
)
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def disagreements(found: list[tuple[dict, list[str]]]) -> list[str]:
    """Where a module's imports and its declared dependencies of the package differ."""
    names = {t["name"] for t, _ in found}
    problems = []
    for target, uses in found:
        if target["type"] == "system":
            continue
        folder = ROOT / (target.get("path") or f"Sources/{target['name']}")
        imported = set()
        for source in folder.rglob("*.swift"):
            imported |= set(IMPORT.findall(BLOCK_COMMENT.sub("", source.read_text())))
        imported &= names
        for name in sorted(set(uses) - imported):
            problems.append(f"{target['name']} declares {name}, but none of its files imports it")
        for name in sorted(imported - set(uses) - {target["name"]}):
            problems.append(f"{target['name']} imports {name} without declaring it in Package.swift")
    return problems


def main() -> int:
    found = modules()
    made = graph(found)
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
    status = 0
    if written.strip() != made.strip():
        print("docs/development.md's module graph differs from Package.swift; run scripts/module-graph.py --write")
        print("Package.swift says:\n" + made)
        status = 1
    for problem in disagreements(found):
        print(problem)
        status = 1
    if status == 0:
        print("the module graph in docs/development.md matches Package.swift, and every module imports what it declares")
    return status


if __name__ == "__main__":
    sys.exit(main())
