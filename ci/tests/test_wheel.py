"""The pinbench wheel (ci/wheel.py): laid out as pip installs it, pinreport's dependencies and
Requires-Python declared, a RECORD pip accepts, the tag auditwheel gives, one version."""

import base64
import email.parser
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "ci"))
SPEC = importlib.util.spec_from_file_location("wheel", ROOT / "ci" / "wheel.py")
wheel = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(wheel)
sys.path.insert(0, str(ROOT / "reports"))
from pinreport import __version__  # noqa: E402

TRUE = shutil.which("true")


def _fake_auditwheel(tmp_path: Path, said: str) -> Path:
    """A stand-in for `auditwheel show` that gives SAID, whatever the wheel."""
    script = tmp_path / "auditwheel"
    script.write_text(f"#!{sys.executable}\nprint({said!r})\n")
    script.chmod(0o755)
    return script


def _fake_linux_build(tmp_path: Path, version: str) -> Path:
    build = tmp_path / "build"
    (build / "harness").mkdir(parents=True)
    shutil.copy2(TRUE, build / "harness" / "pinbench")  # an ELF that imports libc.so.6 only
    shutil.copy2(TRUE, build / "harness" / "libpinbench_trace_inject.so")
    (build / "CMakeCache.txt").write_text(f"CMAKE_PROJECT_VERSION:STATIC={version}\n")
    return build


def _run(*args):
    return subprocess.run(
        [sys.executable, str(ROOT / "ci" / "wheel.py"), *map(str, args)], capture_output=True, text=True
    )


CONSISTENT = 'pinbench.whl is consistent with the following platform tag: "manylinux_2_17_x86_64".'


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    out = tmp / "out"
    done = _run(
        "linux",
        "--build",
        _fake_linux_build(tmp, __version__),
        "--out",
        out,
        "--auditwheel",
        _fake_auditwheel(tmp, CONSISTENT),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (path,) = out.glob("*.whl")
    return path


def test_the_wheel_is_named_and_tagged_as_auditwheel_says(built):
    assert built.name == f"pinbench-{__version__}-py3-none-manylinux_2_17_x86_64.whl"
    with zipfile.ZipFile(built) as zf:
        text = zf.read(f"pinbench-{__version__}.dist-info/WHEEL").decode()
    assert "Tag: py3-none-manylinux_2_17_x86_64\n" in text and "Root-Is-Purelib: false\n" in text


def test_the_programs_are_scripts_and_the_rest_is_where_pip_installs_it(built):
    data = f"pinbench-{__version__}.data"
    with zipfile.ZipFile(built) as zf:
        infos = {i.filename: i for i in zf.infolist()}
        entry_points = zf.read(f"pinbench-{__version__}.dist-info/entry_points.txt").decode()
    for program in ("pinbench", "libpinbench_trace_inject.so"):
        info = infos[f"{data}/scripts/{program}"]
        assert (info.external_attr >> 16) & 0o777 == 0o755
    assert f"{data}/data/share/pinbench/scenarios/quick.yaml" in infos
    assert f"{data}/data/share/pinbench/scenarios/schema.json" in infos
    assert f"{data}/data/share/pinbench/docs/pip-install.md" in infos  # cited by pinbench's answer
    assert f"{data}/data/share/pinbench/scenarios/pytorch-dataloader.yaml" not in infos  # a command kind
    shipped = {n for n in infos if n.startswith("pinreport/") and n.endswith(".py")}
    in_tree = {p.relative_to(ROOT / "reports").as_posix() for p in (ROOT / "reports" / "pinreport").rglob("*.py")}
    assert shipped == in_tree
    assert entry_points == wheel.entry_points_text() == "[console_scripts]\npinreport = pinreport.start:main\n"


def test_pinreports_requirements_are_the_wheels(built):
    project = tomllib.loads((ROOT / "reports" / "pyproject.toml").read_text())["project"]
    with zipfile.ZipFile(built) as zf:
        meta = email.parser.Parser().parsestr(zf.read(f"pinbench-{__version__}.dist-info/METADATA").decode())
    assert meta["Name"] == "pinbench" and meta["Version"] == __version__
    assert meta["Requires-Python"] == project["requires-python"]

    def parsed(requirements):
        return {(canonicalize_name(r.name), r.specifier) for r in map(Requirement, requirements)}

    assert parsed(meta.get_all("Requires-Dist")) == parsed(project["dependencies"])
    assert "extra" not in " ".join(meta.get_all("Requires-Dist"))  # not pinreport's test extra


def test_the_index_page_renders_with_every_link_absolute(built):
    """The page an index shows: Markdown as PyPI renders it (readme_renderer, which twine check
    does not run for Markdown), every link absolute or an anchor of the page; twine check passes,
    warnings counted as failures."""
    markdown = pytest.importorskip("readme_renderer.markdown")
    with zipfile.ZipFile(built) as zf:
        meta = email.parser.Parser().parsestr(zf.read(f"pinbench-{__version__}.dist-info/METADATA").decode())
    assert meta["Description-Content-Type"] == "text/markdown"
    page = markdown.render(meta.get_payload())
    assert page, "no Markdown renderer (pip install 'readme-renderer[md]', ci/requirements.txt)"
    assert "<h1" in page and "pip install pinbench" in page
    links = re.findall(r'href="([^"]+)"', page)
    assert links and all(link.startswith((wheel.REPOSITORY + "/", "#")) for link in links), links
    assert {label for label, _ in wheel.PROJECT_URLS} == {u.split(",", 1)[0] for u in meta.get_all("Project-URL")}
    twine = shutil.which("twine", path=str(Path(sys.executable).parent)) or shutil.which("twine")
    if twine is None:
        pytest.skip("no twine (ci/requirements.txt)")
    checked = subprocess.run([twine, "check", "--strict", str(built)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_record_holds_every_file_with_its_hash(built):
    with zipfile.ZipFile(built) as zf:
        names = set(zf.namelist())
        record = zf.read(f"pinbench-{__version__}.dist-info/RECORD").decode().splitlines()
        listed = set()
        for line in record:
            name, digest, size = line.rsplit(",", 2)
            listed.add(name)
            if name.endswith("/RECORD"):
                assert digest == size == ""
                continue
            content = zf.read(name)
            want = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
            assert digest == f"sha256={want}" and int(size) == len(content), name
    assert listed == names


def test_a_build_of_another_version_is_refused(tmp_path):
    done = _run(
        "linux",
        "--build",
        _fake_linux_build(tmp_path, "9.9.9"),
        "--out",
        tmp_path / "out",
        "--auditwheel",
        _fake_auditwheel(tmp_path, CONSISTENT),
    )
    assert done.returncode == 1
    assert f"is pinbench 9.9.9, pinreport is {__version__}" in done.stderr
    assert not list((tmp_path / "out").glob("*.whl"))


def test_no_manylinux_tag_from_auditwheel_writes_no_wheel(tmp_path):
    said = "This does not look like a platform wheel, no ELF executable or shared library file"
    done = _run(
        "linux",
        "--build",
        _fake_linux_build(tmp_path, __version__),
        "--out",
        tmp_path / "out",
        "--auditwheel",
        _fake_auditwheel(tmp_path, said),
    )
    assert done.returncode == 1 and "auditwheel found no manylinux tag" in done.stderr
    assert not list((tmp_path / "out").glob("*.whl"))


@pytest.mark.skipif(
    not os.environ.get("PINBENCH_EXE"), reason="PINBENCH_EXE names no built pinbench (ci/test.sh sets it)"
)
def test_pinbench_and_pinreport_give_one_version():
    pinbench = subprocess.run([os.environ["PINBENCH_EXE"], "--version"], capture_output=True, text=True, check=True)
    pinreport = subprocess.run(
        [sys.executable, "-m", "pinreport", "--version"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "reports")},
    )
    assert pinbench.stdout.strip() == f"pinbench {__version__}"
    assert pinreport.stdout.strip() == f"pinreport {__version__}"
