"""pyproject.toml's package search finds every package of pinreport (a non-editable install, and
the pinbench wheel, ship only those)."""

import tomllib
from fnmatch import fnmatchcase

from conftest import REPO_ROOT


def test_every_subpackage_is_found():
    reports = REPO_ROOT / "reports"
    search = tomllib.loads((reports / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    found = {".".join(p.parent.relative_to(reports).parts) for p in (reports / "pinreport").rglob("__init__.py")}
    # setuptools' find matches each package name against the include patterns (fnmatchcase).
    shipped = {name for name in found if any(fnmatchcase(name, pattern) for pattern in search["include"])}
    assert shipped == found
    assert {"pinreport.advice", "pinreport.claims", "pinreport.render.charts"} <= found
