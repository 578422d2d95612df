"""Every package pinreport imports is declared in reports/pyproject.toml with a lower bound, and
reports/requirements.txt admits the same (`referencing` was imported, not
declared, and jsonschema 4.10 to 4.17, which lack it, were admitted). That the lower bounds
really work is ci/check_lower_bounds.py's part: it installs each and runs this suite."""

import ast
import re
import sys
import tomllib

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "ci"))
import check_lower_bounds  # noqa: E402

# Import name -> distribution name, where they differ.
DISTRIBUTION = {"jsonschema_rs": "jsonschema-rs"}


def _imported(folder) -> set[str]:
    names = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n != "pinreport"}


def _declared(specs) -> dict[str, str]:
    out = {}
    for spec in specs:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(>=\s*[0-9][^,]*)(,.*)?", spec.strip())
        assert m, f"{spec!r}: every dependency has a lower bound"
        out[m.group(1).lower()] = m.group(2).replace(" ", "")
    return out


PROJECT = tomllib.loads((REPO_ROOT / "reports/pyproject.toml").read_text())["project"]


def test_every_import_of_the_package_is_a_declared_dependency():
    declared = _declared(PROJECT["dependencies"])
    used = {DISTRIBUTION.get(n, n).lower() for n in _imported(REPO_ROOT / "reports/pinreport")}
    assert used <= set(declared), f"imported, not declared: {sorted(used - set(declared))}"
    assert "referencing" in used


def test_the_tests_imports_are_declared_as_the_test_extra():
    declared = _declared(PROJECT["dependencies"] + PROJECT["optional-dependencies"]["test"])
    # Modules of the repository (ci/, tools/verdicts/), and playwright: optional, skipped without.
    local = {p.stem for p in (REPO_ROOT / "reports/tests").glob("*.py")} | {"check_lower_bounds", "committed_verdicts"}
    local.add("playwright")
    used = {DISTRIBUTION.get(n, n).lower() for n in _imported(REPO_ROOT / "reports/tests")} - local
    assert used <= set(declared), f"imported by the tests, not declared: {sorted(used - set(declared))}"


def test_requirements_admit_the_same_lower_bounds():
    lines = (REPO_ROOT / "reports/requirements.txt").read_text().splitlines()
    required = _declared([line for line in lines if line and not line.startswith("#") and ">=" in line])
    declared = _declared(PROJECT["dependencies"] + PROJECT["optional-dependencies"]["test"])
    assert {k: required.get(k) for k in declared} == declared


def test_the_lower_bound_check_pins_every_declared_dependency():
    pins = dict(p.split("==") for p in check_lower_bounds.lower_pins())
    declared = _declared(PROJECT["dependencies"] + PROJECT["optional-dependencies"]["test"])
    assert {k.lower(): ">=" + v for k, v in pins.items()} == declared
