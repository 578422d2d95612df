"""The packages (ci/package.py): what a user downloads holds the programs, the scenarios and
pinreport, and imports nothing that the machine may lack."""

import importlib.util
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("package", ROOT / "ci" / "package.py")
package = importlib.util.module_from_spec(SPEC)
sys.modules["package"] = package
SPEC.loader.exec_module(package)
wheelhouse_tool = sys.modules["wheelhouse"]  # ci/wheelhouse.py, as package.py imports it
MINGW_GXX = shutil.which("x86_64-w64-mingw32-g++-posix") or shutil.which("x86_64-w64-mingw32-g++")


def _run(*args):
    return subprocess.run(
        [sys.executable, str(ROOT / "ci" / "package.py"), *map(str, args)], capture_output=True, text=True
    )


@pytest.mark.parametrize(
    "platform,library,reason",
    [
        (package.WINDOWS, "nvcuda.dll", "CUDA"),
        (package.WINDOWS, "cudart64_12.dll", "CUDA"),
        (package.WINDOWS, "nvml.dll", "CUDA"),
        (package.WINDOWS, "MSVCP140.dll", "MSVC runtime"),
        (package.WINDOWS, "VCRUNTIME140.dll", "MSVC runtime"),
        (package.WINDOWS, "libstdc++-6.dll", "mingw"),
        (package.WINDOWS, "libwinpthread-1.dll", "mingw"),
        (package.WINDOWS, "yaml-cpp.dll", "not a library of the operating system"),
        # Windows' own, but no KnownDLL: an import is looked for beside the program first.
        (package.WINDOWS, "pdh.dll", "not a KnownDLL"),
        (package.WINDOWS, "dxgi.dll", "not a KnownDLL"),
        (package.WINDOWS, "bcrypt.dll", "not a KnownDLL"),
        (package.LINUX, "libcuda.so.1", "CUDA"),
        (package.LINUX, "libnvidia-ml.so.1", "CUDA"),
        (package.LINUX, "libcudart.so.13", "CUDA"),
        (package.LINUX, "libyaml-cpp.so.0.7", "not a library of the operating system"),
    ],
)
def test_a_library_the_user_may_lack_is_refused_with_its_reason(platform, library, reason):
    allowed = ["KERNEL32.dll", "msvcrt.dll"] if platform is package.WINDOWS else ["libc.so.6", "libstdc++.so.6"]
    (problem,) = package.forbidden_imports(platform, [*allowed, library])
    assert problem.startswith(library) and reason in problem


def _fake_build(tmp_path: Path, program: Path) -> Path:
    build = tmp_path / "build"
    (build / "harness").mkdir(parents=True)
    shutil.copy2(program, build / "harness" / "pinbench.exe")
    (build / "CMakeCache.txt").write_text("CMAKE_PROJECT_VERSION:STATIC=9.9.9\n")
    return build


@pytest.mark.skipif(MINGW_GXX is None, reason="mingw-w64 is not installed (ci/setup-debian.sh --test)")
def test_a_program_linked_against_the_mingw_runtime_dll_is_not_packaged(tmp_path):
    source = tmp_path / "hello.cpp"
    source.write_text('#include <iostream>\nint main() { std::cout << "hi\\n"; }\n')
    exe = tmp_path / "hello.exe"
    subprocess.run([MINGW_GXX, "-O0", "-o", str(exe), str(source)], check=True)  # libstdc++-6.dll, not static
    out = tmp_path / "out"
    done = _run("windows", "--build", _fake_build(tmp_path, exe), "--out", out, "--no-wheel")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FORBIDDEN import in pinbench.exe: libstdc++-6.dll: a mingw-w64 DLL" in done.stderr
    assert not out.exists() or not list(out.iterdir())  # nothing packed


@pytest.mark.skipif(
    not (ROOT / "build" / "mingw" / "harness" / "pinbench.exe").is_file(),
    reason="build/mingw is not built (ci/check_windows.sh)",
)
def test_the_windows_zip_holds_pinbench_the_scenarios_a_readme_and_the_wheelhouse(tmp_path):
    done = _run("windows", "--out", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pinbench.exe: " in done.stdout and " bytes, imports " in done.stdout
    (archive,) = tmp_path.glob("pinbench-*-windows-x64.zip")
    zf = zipfile.ZipFile(archive)
    names = set(zf.namelist())
    top = archive.name.removesuffix(".zip")
    scenarios = {f"{top}/scenarios/{p.name}" for p in (ROOT / "scenarios").glob("*.yaml")}
    scenarios.remove(f"{top}/scenarios/pytorch-dataloader.yaml")  # runs a script the zip lacks
    assert f"{top}/scenarios/pytorch-dataloader.yaml" not in names
    assert "left out scenarios/pytorch-dataloader.yaml" in done.stdout
    (wheel,) = tmp_path.glob("pinreport-*.whl")  # beside the zip, and in its wheelhouse
    replay = {f"{top}/results/h200-smoke.json", f"{top}/scenarios/replay/relabel-demo.yaml"}
    # what --help and the messages cite (command_store.cpp: "docs/store.md"; budget --help:
    # docs/budget.schema.json), and pinreport in the wheelhouse
    docs = {f"{top}/docs/store.md", f"{top}/docs/trace.md", f"{top}/docs/results-schema.md"}
    docs |= {f"{top}/docs/{d.removeprefix('docs/')}" for d in package.cited_docs()}
    wanted_files = {f"{top}/pinbench.exe", f"{top}/README.md", f"{top}/scenarios/schema.json"} | scenarios
    wanted_files.add(f"{top}/wheelhouse/{wheel.name}")
    assert wanted_files | replay | docs <= names, sorted((wanted_files | replay | docs) - names)
    # Every locked wheel, for every supported Python (ci/wheelhouse.lock): nothing else.
    wheelhouse = {n.removeprefix(f"{top}/wheelhouse/") for n in names if n.startswith(f"{top}/wheelhouse/")}
    locked = {name for name, _, _, _ in wheelhouse_tool.locked()}
    shipped = {wheelhouse_tool.normalized(w.split("-")[0]) for w in wheelhouse} - {"pinreport"}
    assert shipped == locked, sorted(shipped ^ locked)
    for python in wheelhouse_tool.supported_pythons():
        tag = "cp" + python.replace(".", "")
        assert any(f"-{tag}-{tag}-win_amd64.whl" in w for w in wheelhouse), (python, sorted(wheelhouse))
    # The README names each file as the zip has it, its version spelled out, so its commands run
    # as written (ci/package_readme.py runs them).
    readme = zf.read(f"{top}/README.md").decode()
    for dll in (n.removeprefix(f"{top}/") for n in names if n.endswith(".dll")):
        assert f"`{dll}`" in readme, dll
    assert "VERSION" not in readme
    assert f"cd {top}\n" in readme and "results\\h200-smoke.json" in readme
    assert "--no-index --find-links wheelhouse pinreport" in readme
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    source = ROOT / "reports"
    wanted = {
        str(p.relative_to(source))
        for p in (source / "pinreport").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix in {".py", ".json", ".j2"}
    }
    assert wanted and wanted <= in_wheel, sorted(wanted - in_wheel)


def test_the_wheelhouse_lock_answers_pyproject_for_every_supported_python():
    """ci/wheelhouse.lock pins one version with its hashes of every dependency of pinreport
    (reports/pyproject.toml), inside its range, for each Python of its classifiers."""
    assert wheelhouse_tool.supported_pythons()[0] == "3.11"  # requires-python's bound
    assert wheelhouse_tool.check_lock() == []
    for name, _version, _marker, hashes in wheelhouse_tool.locked():
        assert hashes and all(len(h) == 64 for h in hashes), name


def test_a_lock_that_misses_a_python_is_refused(tmp_path, monkeypatch):
    broken = tmp_path / "wheelhouse.lock"
    # numpy's pin for Python 3.12 to 3.14 dropped: only 3.11 has one.
    lines = wheelhouse_tool.LOCK.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("numpy==") and "3.12" in line)
    end = next(i for i in range(at + 1, len(lines)) if not lines[i].startswith("    --hash"))
    broken.write_text("\n".join(lines[:at] + lines[end:]) + "\n")
    monkeypatch.setattr(wheelhouse_tool, "LOCK", broken)
    problems = wheelhouse_tool.check_lock()
    assert "numpy: 0 pins for Python 3.12, expected 1" in problems, problems


@pytest.mark.skipif(shutil.which("readelf") is None, reason="readelf is not installed")
def test_the_linux_tarball_refuses_a_program_that_links_the_cuda_driver(tmp_path):
    source = tmp_path / "p.c"
    source.write_text("int main(void) { return 0; }\n")
    lib_dir = tmp_path / "lib"
    lib_dir.mkdir()
    # A stand-in libcuda.so.1 (an empty shared library with that soname) to link against.
    stub = tmp_path / "stub.c"
    stub.write_text("int cuInit(unsigned f) { return (int)f; }\n")
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o", str(lib_dir / "libcuda.so.1"), str(stub)],
        check=True,
    )
    (lib_dir / "libcuda.so").symlink_to("libcuda.so.1")
    build = tmp_path / "build"
    (build / "harness").mkdir(parents=True)
    subprocess.run(
        ["cc", "-o", str(build / "harness" / "pinbench"), str(source), f"-L{lib_dir}", "-Wl,--no-as-needed", "-lcuda"],
        check=True,
    )
    (build / "CMakeCache.txt").write_text("CMAKE_PROJECT_VERSION:STATIC=9.9.9\n")
    done = _run("linux", "--build", build, "--out", tmp_path / "out", "--no-wheel")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "libcuda.so.1: a CUDA/NVML/CUPTI library" in done.stderr
    # Without it, the same program is packed.
    subprocess.run(["cc", "-o", str(build / "harness" / "pinbench"), str(source)], check=True)
    done = _run("linux", "--build", build, "--out", tmp_path / "out", "--no-wheel")
    assert done.returncode == 0, done.stdout + done.stderr
    (archive,) = (tmp_path / "out").glob("pinbench-9.9.9-linux-x64.tar.gz")
    with tarfile.open(archive) as tar:
        assert "pinbench-9.9.9-linux-x64/pinbench" in tar.getnames()
