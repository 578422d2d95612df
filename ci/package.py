#!/usr/bin/env python3
"""The packages users download: pinbench for Windows (a zip) and Linux (a tarball), and pinreport's wheel.

    ci/package.py windows [--build build/mingw] [--out build/package]
    ci/package.py linux   [--build build/release] [--out build/package]

Takes the programs a build made (pinbench, and the trace injection library where the build has
it), the scenario files that can run from the package (one that runs a program of the
repository's, a `command` kind, is left out and named), the platform's short README
(docs/package-windows.md or docs/package-linux.md, as README.md, its VERSION spelled out), a
committed results file and replay script so that the README's replay command runs without a GPU
(REPLAY_EXAMPLE), the docs/*.md and docs/*.schema.json that pinbench's own messages and --help
cite (read from the sources, so a new citation ships its document), and pinreport, and writes
pinbench-VERSION-PLATFORM-x64.zip (Windows) or .tar.gz (Linux). pinreport: in the zip, the
wheelhouse (`wheelhouse/`: its wheel and its dependencies locked for every supported Python,
ci/wheelhouse.py), so the README installs it with no index; in the tarball, its wheel; and the
wheel beside either. Before packing, every program's dynamic imports are read (objdump -p /
readelf -d) and must be the operating system's own libraries only: CUDA, NVML and CUPTI are
loaded at run time, and on Windows the C++ runtime is linked statically, so a user needs nothing
but the NVIDIA driver; and on Windows each must be a KnownDLL, which Windows never looks for
beside the program (dxgi.dll, pdh.dll are loaded at run time from System32 instead). An import
of a CUDA, MSVC runtime or mingw library, or of a Windows DLL that is not a KnownDLL, ends the
script with exit 1 and names it. Prints each program's size and imports.

Exit codes: 0 packaged; 1 a forbidden import; 2 bad usage or a missing build or tool.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wheelhouse as wheelhouse_tool  # noqa: E402  (ci/wheelhouse.py: the locked wheels)

ROOT = Path(__file__).resolve().parent.parent

# Why a library may not be imported, by name; the first pattern that matches gives the reason.
CUDA_LIBRARY = (
    re.compile(r"^(lib)?(nvcuda|cuda|cudart|nvidia-ml|nvml|cupti|nvrtc|nvjitlink)", re.I),
    "a CUDA/NVML/CUPTI library (it is loaded at run time)",
)
# A Windows DLL that is not a KnownDLL, imported, is looked for in the program's folder first: a
# planted copy beside pinbench.exe (a download folder) would run inside it (docs/windows.md,
# "Which DLLs pinbench loads"). Such a DLL is loaded at run time from System32 instead.
NOT_KNOWN_DLL = (
    re.compile(
        r"^(dxgi|pdh|dxcore|bcrypt|version|dbghelp|winmm|iphlpapi|userenv|powrprof|cfgmgr32|d3d\w*)\.dll$", re.I
    ),
    "not a KnownDLL: Windows would look for it in the program's folder first (load it at run time "
    "from System32: DynamicLibrary::open_system)",
)
FORBIDDEN_KINDS = (
    CUDA_LIBRARY,
    NOT_KNOWN_DLL,
    (re.compile(r"^(msvcp|vcruntime|msvcr\d|ucrtbase|concrt|vcomp)", re.I), "an MSVC runtime (link statically)"),
    (re.compile(r"^(libstdc\+\+|libgcc|libwinpthread|libgomp|libz|zlib)", re.I), "a mingw-w64 DLL (link statically)"),
)


@dataclass(frozen=True)
class Platform:
    name: str
    default_build: str
    program: str  # pinbench's file name
    library_glob: str  # the trace injection library beside it
    readme: str
    tool: tuple[str, ...]  # the command that lists a program's imports, the program appended
    imported: re.Pattern[str]  # one library name per match in that command's output
    allowed: frozenset[str]  # lower-case names of the OS libraries a program may import

    def imports_of(self, program: Path) -> list[str]:
        out = subprocess.run([*self.tool, str(program)], capture_output=True, text=True, check=True).stdout
        return self.imported.findall(out)


WINDOWS = Platform(
    name="windows",
    default_build="build/mingw",
    program="pinbench.exe",
    library_glob="pinbench_trace_inject.dll",
    readme="docs/package-windows.md",
    tool=("x86_64-w64-mingw32-objdump", "-p"),
    imported=re.compile(r"^\s*DLL Name: (\S+)", flags=re.M),
    # Windows' own DLLs that are KnownDLLs on every supported Windows (Windows 10 and 11: the
    # registry's Session Manager\KnownDLLs, plus ntdll and kernelbase, always the system's), so
    # loaded from System32 whatever lies beside the program. msvcrt.dll is the system C library
    # that mingw-w64 programs call, not an MSVC redistributable.
    allowed=frozenset(
        n.lower()
        for n in (
            "ntdll.dll",
            "KERNEL32.dll",
            "KERNELBASE.dll",
            "ADVAPI32.dll",
            "USER32.dll",
            "GDI32.dll",
            "msvcrt.dll",
            "ole32.dll",
            "OLEAUT32.dll",
            "combase.dll",
            "rpcrt4.dll",
            "sechost.dll",
            "SHELL32.dll",
            "SHLWAPI.dll",
            "WS2_32.dll",
            "PSAPI.dll",
            "IMM32.dll",
            "COMDLG32.dll",
            "SETUPAPI.dll",
        )
    ),
)
LINUX = Platform(
    name="linux",
    default_build="build/release",
    program="pinbench",
    library_glob="libpinbench_trace_inject*.so",
    readme="docs/package-linux.md",
    tool=("readelf", "-d"),
    imported=re.compile(r"\(NEEDED\)\s+Shared library: \[(\S+)\]"),
    # glibc, the GCC runtime and zlib (libz.so.1, linked dynamically: it is on every distribution
    # that has a GPU driver), on every Linux the tarball supports.
    allowed=frozenset(
        (
            "libc.so.6",
            "libm.so.6",
            "libstdc++.so.6",
            "libgcc_s.so.1",
            "libdl.so.2",
            "libpthread.so.0",
            "librt.so.1",
            "libz.so.1",
            "ld-linux-x86-64.so.2",
        )
    ),
)
PLATFORMS = {p.name: p for p in (WINDOWS, LINUX)}

# The README's replay example: a committed H200 results file and a replay script, as the package
# holds them (source in the repository, name in the package).
REPLAY_EXAMPLE = (
    ("results/h200-smoke/results.json", "results/h200-smoke.json"),
    ("scenarios/replay/relabel-demo.yaml", "scenarios/replay/relabel-demo.yaml"),
)
# A scenario with a `command` kind runs a program of its own (a script of the repository's).
COMMAND_KIND = re.compile(r"^\s*kind:\s*command\b", flags=re.M)
# A run of adjacent C++ string literals (one message, though split over lines), and a docs/
# file (a page or a schema) that a message or --help text cites.
STRING_LITERALS = re.compile(r'"(?:[^"\\\n]|\\.)*"(?:\s*"(?:[^"\\\n]|\\.)*")*')
CITED_DOC = re.compile(r"docs/[A-Za-z0-9_.-]+\.(?:md|json)")


def cpp_messages() -> list[tuple[str, str]]:
    """(where, text) of every string in pinbench's sources (harness/src, harness/cli), adjacent
    literals joined, comments left out: every message and help text pinbench can print."""
    messages = []
    for folder in ("harness/src", "harness/cli"):
        for source in sorted((ROOT / folder).rglob("*.[ch]pp")):
            text = source.read_text(encoding="utf-8")
            code = "\n".join("" if line.lstrip().startswith(("//", "#include")) else line for line in text.splitlines())
            for match in STRING_LITERALS.finditer(code):
                joined = "".join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', match.group()))
                line = code.count("\n", 0, match.start()) + 1
                messages.append((f"{source.relative_to(ROOT)}:{line}", joined))
    return messages


def python_messages() -> list[tuple[str, str]]:
    """(where, text) of every string pinreport can print: its string constants, the formatted
    ones' fixed parts joined, docstrings left out."""
    import ast

    messages = []
    for source in sorted((ROOT / "reports" / "pinreport").rglob("*.py")):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        docstrings = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                    docstrings.add(id(first.value))
        inside_f = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) in docstrings or id(node) in inside_f:
                    continue
                text = node.value
            else:
                continue
            messages.append((f"{source.relative_to(ROOT)}:{node.lineno}", text))
    return messages


def cited_docs() -> list[str]:
    """The docs/ files that pinbench's and pinreport's messages and help cite (cpp_messages,
    python_messages), so a new citation ships its document."""
    found = set()
    for _, text in cpp_messages() + python_messages():
        found.update(CITED_DOC.findall(text))
    return sorted(found)


def data_files() -> list[tuple[Path, str]]:
    """(source, name in the package) of what every package ships beside the programs: the zip
    and the tarball at their top, the wheel under share/pinbench/ (ci/wheel.py)."""
    scenarios, _ = scenario_members()
    members = list(scenarios)
    members += [(ROOT / source, name) for source, name in REPLAY_EXAMPLE]
    members += [(ROOT / doc, doc) for doc in cited_docs()]
    members.append((ROOT / "LICENSE", "LICENSE"))
    return members


def scenario_members() -> tuple[list[tuple[Path, str]], list[str]]:
    """The scenario files the package can run, and one line per file left out, with why."""
    members, left_out = [], []
    for p in sorted((ROOT / "scenarios").glob("*.yaml")):
        if COMMAND_KIND.search(p.read_text(encoding="utf-8")):
            left_out.append(f"scenarios/{p.name}: a command kind runs a program the package does not hold")
            continue
        members.append((p, f"scenarios/{p.name}"))
    members.append((ROOT / "scenarios" / "schema.json", "scenarios/schema.json"))
    return members, left_out


def forbidden_imports(platform: Platform, libraries: list[str]) -> list[str]:
    """One line per import that is not the operating system's own, with why it may not be there."""
    problems = []
    for library in libraries:
        if library.lower() in platform.allowed:
            continue
        why = next(
            (reason for pattern, reason in FORBIDDEN_KINDS if pattern.match(library)),
            "not a library of the operating system",
        )
        problems.append(f"{library}: {why}")
    return problems


def checked_programs(platform: Platform, build: Path, who: str, hint: str) -> list[Path] | int:
    """The build's pinbench and its injection library, each read for its imports and refused
    where one is not the operating system's (forbidden_imports), as the package and the wheel
    ship them; else the exit code, said on standard error: 2 not built (HINT says how), 1 a
    forbidden import."""
    program = build / "harness" / platform.program
    if not program.is_file():
        print(f"{who}: {program} not found: build it first ({hint})", file=sys.stderr)
        return 2
    programs = [program] + sorted((build / "harness").glob(platform.library_glob))
    failed = False
    for p in programs:
        libraries = platform.imports_of(p)
        print(f"{who}: {p.name}: {p.stat().st_size} bytes, imports {', '.join(libraries) or 'nothing'}")
        for problem in forbidden_imports(platform, libraries):
            print(f"{who}: FORBIDDEN import in {p.name}: {problem}", file=sys.stderr)
            failed = True
    return 1 if failed else programs


def project_version(build: Path) -> str:
    cache = (build / "CMakeCache.txt").read_text(encoding="utf-8", errors="replace")
    match = re.search(r"^CMAKE_PROJECT_VERSION:STATIC=(\S+)$", cache, flags=re.M)
    if not match:
        raise SystemExit(f"package: no project version in {build / 'CMakeCache.txt'}")
    return match.group(1)


def build_wheel(out: Path) -> Path:
    """pinreport's wheel, built from a copy of reports/ (setuptools' build/ left in the source
    would carry modules that have since moved or gone into the next wheel)."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "reports"
        shutil.copytree(
            ROOT / "reports",
            source,
            ignore=shutil.ignore_patterns("build", "tests", "*.egg-info", "__pycache__", ".pytest_cache"),
        )
        built = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--no-build-isolation",
                "-w",
                str(Path(tmp) / "wheel"),
                str(source),
            ],
            capture_output=True,
            text=True,
        )
        if built.returncode != 0:
            raise SystemExit(f"package: building the pinreport wheel failed:\n{built.stdout}{built.stderr}")
        (wheel,) = (Path(tmp) / "wheel").glob("pinreport-*.whl")
        return Path(shutil.copy2(wheel, out / wheel.name))


def pack(platform: Platform, archive: Path, top: str, members: list[tuple[Path, str]]) -> None:
    tmp = archive.with_name(archive.name + ".tmp")
    if platform.name == "windows":
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
            for source, arcname in members:
                # A wheel is a zip already: stored, not compressed again.
                stored = zipfile.ZIP_STORED if arcname.endswith(".whl") else zipfile.ZIP_DEFLATED
                zf.write(source, f"{top}/{arcname}", compress_type=stored)
    else:
        with tarfile.open(tmp, "w:gz", compresslevel=9) as tf:
            for source, arcname in members:
                tf.add(source, f"{top}/{arcname}")
    tmp.replace(archive)


def readme(platform: Platform, version: str, folder: Path) -> Path:
    """The platform's README with VERSION spelled out, so that its commands (`cd
    pinbench-0.1.0-windows-x64`, the wheel's name) run as written."""
    text = (ROOT / platform.readme).read_text(encoding="utf-8").replace("VERSION", version)
    path = folder / "README.md"
    path.write_text(text, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("platform", choices=sorted(PLATFORMS))
    parser.add_argument(
        "--build", type=Path, help="the build (windows: build/mingw from ci/check_windows.sh; linux: build/release)"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "package", help="where the package and wheel go")
    parser.add_argument("--no-wheel", action="store_true", help="the package only")
    parser.add_argument(
        "--no-wheelhouse",
        action="store_true",
        help="windows: without the wheelhouse (pinreport and its locked dependencies, ci/wheelhouse.py)",
    )
    args = parser.parse_args(argv)
    platform = PLATFORMS[args.platform]
    build = args.build or ROOT / platform.default_build

    if shutil.which(platform.tool[0]) is None:
        print(f"package: {platform.tool[0]} not found (ci/setup-debian.sh --test)", file=sys.stderr)
        return 2
    programs = checked_programs(platform, build, "package", "ci/README.md, 'Packages'")
    if isinstance(programs, int):
        return programs

    args.out.mkdir(parents=True, exist_ok=True)
    version = project_version(build)
    top = f"pinbench-{version}-{platform.name}-x64"
    archive = args.out / (top + (".zip" if platform.name == "windows" else ".tar.gz"))
    with tempfile.TemporaryDirectory() as tmp:
        members = [(p, p.name) for p in programs]
        members.append((readme(platform, version, Path(tmp)), "README.md"))
        for line in scenario_members()[1]:
            print(f"package: left out {line}")
        members += data_files()
        if not args.no_wheel:
            wheel = build_wheel(args.out)
            print(f"package: {wheel} ({wheel.stat().st_size} bytes)")
            if platform.name == "windows" and not args.no_wheelhouse:
                # pinreport and its dependencies for every supported Python, hashes checked: the
                # README installs from here with no index (docs/package-windows.md).
                wheelhouse = Path(tmp) / "wheelhouse"
                if (rc := wheelhouse_tool.main(["build", "--out", str(wheelhouse), "--pinreport", str(wheel)])) != 0:
                    return rc
                members += [(w, f"wheelhouse/{w.name}") for w in sorted(wheelhouse.glob("*.whl"))]
            else:
                members.append((wheel, wheel.name))
        pack(platform, archive, top, members)
    print(f"package: {archive} ({archive.stat().st_size} bytes, {len(members)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
