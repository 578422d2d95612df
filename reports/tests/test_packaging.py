"""pyproject.toml lists every package of pinreport (a non-editable install ships only those)."""

import tomllib

from conftest import REPO_ROOT


def test_every_subpackage_is_listed():
    reports = REPO_ROOT / "reports"
    listed = tomllib.loads((reports / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    found = {".".join(p.parent.relative_to(reports).parts) for p in (reports / "pinreport").rglob("__init__.py")}
    assert sorted(listed) == sorted(found)
    assert {"pinreport.claims", "pinreport.render.charts"} <= found
