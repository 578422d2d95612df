#!/usr/bin/env python3
"""The layering check: every C++ include and Python import against docs/architecture.md.

The layering is written once, in the two tables of docs/architecture.md ("The layers"): each
folder (a stage) with its rank and the folders it may include. This script reads those tables,
reads the code's own includes (harness/src, harness/cli, harness/include/pinbench) and imports
(reports/pinreport, every import, also those inside functions), and fails on:
  - an include or import of a folder that the table does not let its folder reach;
  - a "may include" that names a folder of the same or a higher rank (that would allow a cycle);
  - an exception below that no longer matches an arrow of the code (a fixed arrow leaves the list);
  - a folder cycle (folders that reach each other through their arrows, exceptions included);
  - a read of a document as written (`.doc`, `.record`, `._doc`, `._raw`) in pinreport outside
    its readers' folder (DOCUMENT_READERS, a row of the Python table): every other stage reads
    the typed values the readers made, once, at the border.
An arrow that has to run against the layering for a while is listed in EXCEPTIONS with the
reason and when it goes (none today). Exit 0: clean; 1: a violation (each printed); 2: the
tables could not be read.

Usage: ci/check_layers.py [--root DIR]
"""

import argparse
import ast
import re
import sys
from pathlib import Path

# Arrows against the layering that stay for now: (file, what it includes or imports) -> why.
# Each names the files it waits for; remove the entry with the arrow (an entry that matches no
# arrow fails the check, so the list cannot go stale).
EXCEPTIONS: dict[tuple[str, str], str] = {}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)

# pinreport's folder that reads documents as written (the Python table's row of that name), and
# the attributes that hold a document as written: read there only.
DOCUMENT_READERS = "readers"
DOCUMENT_ATTRIBUTES = ("doc", "record", "_doc", "_raw")


def read_table(doc: str, marker: str) -> dict[str, tuple[int, set[str], list[str]]]:
    """The table after `<!-- layers: MARKER -->`: folder -> (rank, may include, members)."""
    at = doc.find(f"<!-- layers: {marker} -->")
    if at < 0:
        raise ValueError(f"docs/architecture.md has no '<!-- layers: {marker} -->' table")
    layers: dict[str, tuple[int, set[str], list[str]]] = {}
    for line in doc[at:].splitlines()[1:]:
        if not line.startswith("|"):
            if layers:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].isdigit():
            continue  # header or rule
        rank, folder, members, allowed = int(cells[0]), cells[1].strip("`"), cells[2], cells[3]
        names = set(re.findall(r"`([^`]+)`", allowed))
        layers[folder] = (rank, names, re.findall(r"`([^`]+)`", members))
    if not layers:
        raise ValueError(f"docs/architecture.md: the '{marker}' table has no rows")
    return layers


def check_table(layers: dict[str, tuple[int, set[str], list[str]]], what: str) -> list[str]:
    errors = []
    for folder, (rank, allowed, _) in layers.items():
        for other in sorted(allowed):
            if other not in layers:
                errors.append(f"{what} table: {folder} may include '{other}', which is no row")
            elif layers[other][0] >= rank:
                errors.append(
                    f"{what} table: {folder} (rank {rank}) may include {other} "
                    f"(rank {layers[other][0]}): only lower ranks, or folders could cycle"
                )
    return errors


def cpp_folder(root: Path, path: Path) -> str | None:
    rel = path.relative_to(root).as_posix()
    if rel.startswith("harness/cli/"):
        return "cli"
    if rel.startswith("harness/src/"):
        return rel.split("/")[2]
    if rel.startswith("harness/include/pinbench/"):
        # A public header lives in its stage's folder: harness/include/pinbench/STAGE/NAME.hpp.
        # One directly under pinbench/ has no stage ("?", which no table row names: an error).
        parts = rel.split("/")
        return parts[3] if len(parts) > 4 else "?"
    return None


def cpp_arrows(root: Path):
    """(file, included file) for every quoted include that names a file of the harness."""
    sources = [
        p
        for d in ("harness/src", "harness/cli", "harness/include/pinbench")
        for p in sorted((root / d).rglob("*"))
        if p.suffix in {".cpp", ".hpp", ".cu", ".h"}
    ]
    for src in sources:
        for name in INCLUDE.findall(src.read_text(encoding="utf-8", errors="replace")):
            for base in (root / "harness/include", root / "harness/src", src.parent):
                if (base / name).is_file():
                    yield src, (base / name).resolve()
                    break


def python_modules(root: Path) -> dict[str, Path]:
    package = root / "reports" / "pinreport"
    modules = {}
    for p in sorted(package.rglob("*.py")):
        parts = p.relative_to(root / "reports").with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return modules


def python_arrows(root: Path):
    """(file, imported module) for every import of a pinreport module, wherever it stands."""
    modules = python_modules(root)
    seen = set()
    for path in modules.values():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [
                    f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                    for a in node.names
                ]
            for t in targets:
                if t in modules and t != "pinreport" and (path, t) not in seen:
                    seen.add((path, t))
                    yield path, t


def python_folder(layers, module: str) -> str:
    """The row whose members name the module or a package above it (the longest such name)."""
    best, best_len = "?", -1
    for folder, (_, _, members) in layers.items():
        for m in members:
            full = m if m.startswith("pinreport") else f"pinreport.{m}"
            full = full.removesuffix("/").replace("/", ".")
            if (module == full or module.startswith(full + ".")) and len(full) > best_len:
                best, best_len = folder, len(full)
    return best


def document_reads(root: Path, layers) -> list[str]:
    """Every read of a document as written (DOCUMENT_ATTRIBUTES) in a pinreport module outside
    the DOCUMENT_READERS folder, as "FILE:LINE: ..."."""
    if DOCUMENT_READERS not in layers:
        return [f"Python table: no row '{DOCUMENT_READERS}' (the folder that reads documents as written)"]
    out = []
    for module, path in python_modules(root).items():
        if python_folder(layers, module) == DOCUMENT_READERS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in DOCUMENT_ATTRIBUTES and isinstance(node.ctx, ast.Load):
                out.append(
                    f"{path.relative_to(root).as_posix()}:{node.lineno}: reads .{node.attr}, a document as written, "
                    f"outside pinreport's {DOCUMENT_READERS}/: read the typed values its readers make "
                    "(docs/architecture.md, 'The layers')"
                )
    return out


def folder_cycles(arrows: set[tuple[str, str]]) -> list[list[str]]:
    """The folders that reach each other through the arrows (strongly connected, two or more)."""
    graph: dict[str, set[str]] = {}
    for a, b in arrows:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for n in graph[todo.pop()] - seen:
                seen.add(n)
                todo.append(n)
        return seen

    reached = {n: reach(n) for n in graph}
    groups = {frozenset(m for m in graph if m in reached[n] and n in reached[m]) | {n} for n in graph}
    return sorted(sorted(g) for g in groups if len(g) > 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    root = parser.parse_args().root.resolve()
    try:
        doc = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
        cpp = read_table(doc, "C++")
        py = read_table(doc, "Python")
    except (OSError, ValueError) as e:
        print(f"check_layers: {e}", file=sys.stderr)
        return 2
    errors = check_table(cpp, "C++") + check_table(py, "Python")
    used = set()
    folder_arrows: set[tuple[str, str]] = set()
    allowed_arrows: set[tuple[str, str]] = set()  # by the table or a listed exception

    def judge(src: str, target_key: str, src_folder: str, target_folder: str, layers, shown: str):
        if src_folder == target_folder:
            return
        arrow = (
            f"{layers is cpp and 'C++' or 'Python'} {src_folder}",
            f"{layers is cpp and 'C++' or 'Python'} {target_folder}",
        )
        folder_arrows.add(arrow)
        if src_folder not in layers or target_folder not in layers:
            missing = src_folder if src_folder not in layers else target_folder
            errors.append(f"{src}: {shown}: folder '{missing}' has no row in the table")
            return
        if target_folder in layers[src_folder][1]:
            allowed_arrows.add(arrow)
            return
        if (src, target_key) in EXCEPTIONS:
            used.add((src, target_key))
            allowed_arrows.add(arrow)
            return
        errors.append(
            f"{src}: {shown}: {src_folder} may not include {target_folder} " f"(docs/architecture.md, 'The layers')"
        )

    for src, target in cpp_arrows(root):
        s, t = cpp_folder(root, src), cpp_folder(root, target)
        rel_s, rel_t = src.relative_to(root).as_posix(), target.relative_to(root).as_posix()
        if s is None or t is None:
            continue
        judge(rel_s, rel_t, s, t, cpp, f"includes {rel_t}")
    for src, module in python_arrows(root):
        rel_s = src.relative_to(root).as_posix()
        s = python_folder(py, ".".join(src.relative_to(root / "reports").with_suffix("").parts))
        judge(rel_s, module, s, python_folder(py, module), py, f"imports {module}")
    errors += document_reads(root, py)
    for key in sorted(set(EXCEPTIONS) - used):
        errors.append(f"ci/check_layers.py: the exception {key[0]} -> {key[1]} matches no arrow: remove it")
    # The table's ranks allow no cycle; only listed exceptions could make one.
    errors += [
        f"folder cycle: {' <-> '.join(c)} (through the listed exceptions)" for c in folder_cycles(allowed_arrows)
    ]
    cycles = folder_cycles(folder_arrows)
    for e in errors:
        print(f"check_layers: {e}")
    summary = (
        f"{len(used)} listed exceptions; {len(folder_arrows)} arrows between folders; folder cycles: "
        f"{'; '.join(' <-> '.join(c) for c in cycles) or 'none'}"
    )
    if errors:
        print(f"check_layers: {len(errors)} arrow(s) against the layering ({summary})")
        return 1
    print(
        f"check_layers: the includes and imports follow docs/architecture.md ({summary}); "
        f"no document read outside pinreport's {DOCUMENT_READERS}/"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
