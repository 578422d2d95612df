#!/usr/bin/env python3
"""The link check of the Markdown documentation: every relative link resolves.

A link is `[text](target)` outside code blocks and code spans; a target with a scheme
(https:, mailto:) is not checked. `path` must name an existing file or folder, relative to the
file that links; `path#anchor` and `#anchor` must also name a heading of that Markdown file,
spelled as GitHub spells heading anchors (lower case, punctuation dropped, spaces as `-`).

The files: docs/*.md, every README.md and NOTES.md under results/, and the READMEs
of benchmarks/, reports/, ci/ and tools/verdicts/; or the files given.

Exit 0: every link resolves; 1: a broken link (each printed as FILE:LINE: target: why).

Usage: ci/check_doc_links.py [--root DIR] [FILE.md ...]
"""

import argparse
import re
import sys
from pathlib import Path

DEFAULT_GLOBS = (
    "README.md",
    "docs/*.md",
    "results/**/README.md",
    "results/**/NOTES.md",
    "benchmarks/README.md",
    "reports/README.md",
    "ci/README.md",
    "tools/verdicts/README.md",
)
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?\s*\)")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(text: str):
    """(line number, line with code spans blanked) for every line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if fence is None and (stripped.startswith("```") or stripped.startswith("~~~")):
            fence = stripped[:3]
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        yield number, re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)


def anchor_of(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file, with GitHub's -1, -2 for repeated headings."""
    seen: dict[str, int] = {}
    found = set()
    fence = None
    for line in path.read_text(encoding="utf-8").splitlines():
        stripped = line.lstrip()
        if fence is None and (stripped.startswith("```") or stripped.startswith("~~~")):
            fence = stripped[:3]
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = anchor_of(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(path: Path) -> list[tuple[int, str, str]]:
    """(line, target, why) for every relative link of one Markdown file that does not resolve."""
    problems = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        for pattern in (LINK, IMAGE):
            for match in pattern.finditer(line):
                target = match.group(1)
                if SCHEME.match(target):
                    continue
                file_part, _, anchor = target.partition("#")
                linked = (path.parent / file_part).resolve() if file_part else path
                if not linked.exists():
                    problems.append((number, target, "no such file"))
                elif anchor and linked.suffix == ".md" and linked.is_file() and anchor not in anchors(linked):
                    problems.append((number, target, f"no heading '#{anchor}' in {linked.name}"))
    return problems


def default_files(root: Path) -> list[Path]:
    files: set[Path] = set()
    for pattern in DEFAULT_GLOBS:
        files.update(p for p in root.glob(pattern) if p.is_file())
    return sorted(files)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args(argv)
    root = args.root.resolve()
    files = [f.resolve() for f in args.files] if args.files else default_files(root)
    count = 0
    links = 0
    for path in files:
        for _number, line in prose_lines(path.read_text(encoding="utf-8")):
            links += len(LINK.findall(line)) + len(IMAGE.findall(line))
        for number, target, why in broken_links(path):
            shown = path.relative_to(root) if path.is_relative_to(root) else path
            print(f"{shown}:{number}: {target}: {why}")
            count += 1
    if count:
        sys.stdout.flush()
        print(f"check_doc_links: {count} broken of {links} links in {len(files)} files", file=sys.stderr)
        return 1
    print(f"check_doc_links: {links} links in {len(files)} files resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
