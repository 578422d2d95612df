#!/usr/bin/env python3
"""The `pinbench` wheel of one platform: `pip install pinbench` (docs/pip-install.md).

    ci/wheel.py linux   [--build build/release] [--out build/wheel] [--auditwheel PATH]
    ci/wheel.py windows [--build build/mingw]   [--out build/wheel]

One wheel carries everything a user runs, laid out as pip installs it:
  pinbench-V.data/scripts/      pinbench (pinbench.exe) and the trace injection library: pip puts
                                them in the environment's bin/ (Scripts\\), the binary itself the
                                command, as ruff and uv ship theirs; pinbench finds the injection
                                library beside itself, as in the zip, the tarball and a build
  pinreport/                    the pinreport package (from reports/, as its own wheel builds it),
                                its command a console script in the same folder, where pinbench
                                looks for it first (harness/cli/answer.cpp)
  pinbench-V.data/data/share/pinbench/   the scenario files, the replay example and the
                                docs/*.md pinbench cites (ci/package.py's lists), installed in
                                the environment's share/pinbench/
pinreport's dependencies and Requires-Python are its own (reports/pyproject.toml), so pip resolves
them. The version is pinreport's __version__, which CMake reads too: the build's version must be
it, or nothing is written. The programs' imports are checked as for the zip and the tarball
(ci/package.py). The Linux wheel's platform tag is the one `auditwheel show` finds the programs
consistent with (the glibc and libstdc++ symbol versions they need), checked again on the wheel
written; the Windows wheel is win_amd64. No sdist: docs/pip-install.md says why.
Prints the wheel's path, size, tag and file list.

Exit codes: 0 written; 1 a forbidden import, a version mismatch or a tag auditwheel refuses;
2 bad usage or a missing build or tool.
"""

from __future__ import annotations

import argparse
import base64
import email.parser
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import package  # noqa: E402  (ci/package.py: the programs, their import check, the files shipped)

ROOT = package.ROOT
NAME = "pinbench"
SUMMARY = "What pinned host memory costs in GPU memory, per NVIDIA driver release: pinbench and pinreport"
DESCRIPTION = ROOT / "docs" / "pip-install.md"
LICENSE = ROOT / "LICENSE"
# The repository the index page links to: the page's relative links become links there. It has
# not been published yet: this address is to be confirmed at the first upload.
REPOSITORY = "https://github.com/pinbench/pinbench"
AUTHOR = "The pinbench authors"
CLASSIFIERS = (
    "Development Status :: 4 - Beta",
    "Environment :: Console",
    "Environment :: GPU :: NVIDIA CUDA",
    "Intended Audience :: Developers",
    "Intended Audience :: Science/Research",
    "Operating System :: Microsoft :: Windows",
    "Operating System :: POSIX :: Linux",
    "Programming Language :: C++",
    "Programming Language :: Python :: 3",
    "Topic :: System :: Benchmark",
)
PROJECT_URLS = (
    ("Homepage", REPOSITORY),
    ("Documentation", f"{REPOSITORY}/blob/main/docs/pip-install.md"),
    ("Source", REPOSITORY),
    ("Issues", f"{REPOSITORY}/issues"),
)
# A relative Markdown link of docs/pip-install.md: `](package-windows.md)`, `](../README.md#x)`.
RELATIVE_LINK = re.compile(r"\]\((?!https?://|#)([^)\s]+)\)")
WINDOWS_TAG = "py3-none-win_amd64"
# What `auditwheel show` says of a wheel whose programs fit a manylinux policy.
AUDITWHEEL_TAG = re.compile(r'consistent with the following platform tag:\s*"?([a-z0-9_]+)"?')


def record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def pinreport_wheel_parts(work: Path) -> tuple[str, list[tuple[str, bytes]], email.message.Message]:
    """pinreport's version, its package files (arcname, bytes) and its METADATA, from its wheel."""
    wheel = package.build_wheel(work)
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        (metadata_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = email.parser.Parser().parsestr(zf.read(metadata_name).decode("utf-8"))
        files = [(n, zf.read(n)) for n in names if n.startswith("pinreport/") and not n.endswith("/")]
    return metadata["Version"], files, metadata


def entry_points_text() -> str:
    """pinreport's console scripts as reports/pyproject.toml declares them (read, not retyped):
    `pinreport` starts at pinreport.start:main, which installs the signal handlers first."""
    project = tomllib.loads((ROOT / "reports" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return "[console_scripts]\n" + "".join(f"{name} = {target}\n" for name, target in project["scripts"].items())


def metadata_text(version: str, pinreport: email.message.Message) -> str:
    """pinbench's METADATA: pinreport's Requires-Python and dependencies (not its test extra)."""
    lines = [
        "Metadata-Version: 2.4",
        f"Name: {NAME}",
        f"Version: {version}",
        f"Summary: {SUMMARY}",
        f"Author: {AUTHOR}",
        "License-Expression: Apache-2.0",
        "License-File: LICENSE",
        f"Requires-Python: {pinreport['Requires-Python']}",
    ]
    lines += [f"Classifier: {c}" for c in CLASSIFIERS]
    lines += [f"Project-URL: {label}, {url}" for label, url in PROJECT_URLS]
    for requirement in pinreport.get_all("Requires-Dist") or []:
        if "extra ==" not in requirement:
            lines.append(f"Requires-Dist: {requirement}")
    lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + index_page_text()


def index_page_text() -> str:
    """docs/pip-install.md with its relative links made absolute, so that they work on the index
    page (they point into the repository, where the page lives)."""

    def absolute(match: re.Match[str]) -> str:
        target = (Path("docs") / match.group(1)).as_posix()
        parts = []
        for part in target.split("/"):
            if part == ".." and parts:
                parts.pop()
            else:
                parts.append(part)
        return f"]({REPOSITORY}/blob/main/{'/'.join(parts)})"

    return RELATIVE_LINK.sub(absolute, DESCRIPTION.read_text(encoding="utf-8"))


def data_members(platform: package.Platform) -> list[tuple[Path, str]]:
    """The files installed under share/pinbench/: as the zip and the tarball hold them."""
    for line in package.scenario_members()[1]:
        print(f"wheel: left out {line}")
    return package.data_files()


def write_wheel(out: Path, version: str, tag: str, programs: list[Path], pinreport_files, pinreport_meta, data) -> Path:
    dist_info = f"{NAME}-{version}.dist-info"
    data_dir = f"{NAME}-{version}.data"
    members: list[tuple[str, bytes, int]] = []  # arcname, bytes, unix mode
    for program in programs:
        members.append((f"{data_dir}/scripts/{program.name}", program.read_bytes(), 0o755))
    members += [(name, content, 0o644) for name, content in pinreport_files]
    for source, name in data:
        members.append((f"{data_dir}/data/share/pinbench/{name}", source.read_bytes(), 0o644))
    members.append((f"{dist_info}/METADATA", metadata_text(version, pinreport_meta).encode("utf-8"), 0o644))
    members.append((f"{dist_info}/licenses/LICENSE", LICENSE.read_bytes(), 0o644))
    wheel_text = "Wheel-Version: 1.0\nGenerator: pinbench ci/wheel.py\nRoot-Is-Purelib: false\n"
    wheel_text += "".join(f"Tag: {t}\n" for t in expand_tag(tag))
    members.append((f"{dist_info}/WHEEL", wheel_text.encode(), 0o644))
    members.append((f"{dist_info}/entry_points.txt", entry_points_text().encode(), 0o644))
    record = [record_line(name, content) for name, content, _ in members] + [f"{dist_info}/RECORD,,"]
    members.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))

    path = out / f"{NAME}-{version}-{tag}.whl"
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, content, mode in members:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # reproducible
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, content)
    tmp.replace(path)
    return path


def expand_tag(tag: str) -> list[str]:
    """py3-none-a.b_x86_64 (a compressed tag set) as one tag per platform."""
    python, abi, platforms = tag.split("-")
    return [f"{python}-{abi}-{p}" for p in platforms.split(".")]


def auditwheel_tag(auditwheel: str, wheel: Path) -> tuple[str | None, str]:
    """The manylinux tag `auditwheel show` finds the wheel consistent with, and its report."""
    shown = subprocess.run([auditwheel, "show", str(wheel)], capture_output=True, text=True)
    report = (shown.stdout + shown.stderr).strip()
    match = AUDITWHEEL_TAG.search(" ".join(report.split()))
    return (match.group(1) if match else None), report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("platform", choices=sorted(package.PLATFORMS))
    parser.add_argument("--build", type=Path, help="the build (windows: build/mingw; linux: build/release)")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "wheel", help="where the wheel goes")
    parser.add_argument("--auditwheel", default="auditwheel", help="auditwheel (linux; pip install auditwheel)")
    args = parser.parse_args(argv)
    platform = package.PLATFORMS[args.platform]
    build = args.build or ROOT / platform.default_build

    tools = [platform.tool[0]] + ([args.auditwheel] if platform is package.LINUX else [])
    for tool in tools:
        if shutil.which(tool) is None:
            print(f"wheel: {tool} not found (ci/wheel_check.sh installs auditwheel into a venv)", file=sys.stderr)
            return 2
    programs = package.checked_programs(platform, build, "wheel", "docs/pip-install.md, 'Building'")
    if isinstance(programs, int):
        return programs

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        version, pinreport_files, pinreport_meta = pinreport_wheel_parts(Path(tmp))
        built_version = package.project_version(build)
        if built_version != version:
            print(
                f"wheel: {build} is pinbench {built_version}, pinreport is {version}: configure the build again "
                "(the version is read from reports/pinreport/__init__.py)",
                file=sys.stderr,
            )
            return 1
        data = data_members(platform)
        parts = (programs, pinreport_files, pinreport_meta, data)
        if platform is package.WINDOWS:
            wheel = write_wheel(args.out, version, WINDOWS_TAG, *parts)
        else:
            # Written once with the plain linux tag for auditwheel to judge, then with its tag.
            plain = write_wheel(Path(tmp), version, "py3-none-linux_x86_64", *parts)
            tag, report = auditwheel_tag(args.auditwheel, plain)
            print("\n".join(f"wheel: auditwheel: {line}" for line in report.splitlines()))
            if tag is None:
                print("wheel: auditwheel found no manylinux tag for these programs", file=sys.stderr)
                return 1
            wheel = write_wheel(args.out, version, f"py3-none-{tag}", *parts)
            again, report = auditwheel_tag(args.auditwheel, wheel)
            if again != tag:
                print(f"wheel: auditwheel on {wheel.name}: {report}", file=sys.stderr)
                return 1
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            print(f"wheel:   {info.file_size:>9} {info.filename}")
        count = len(zf.infolist())
    print(f"wheel: {wheel} ({wheel.stat().st_size} bytes, {count} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
