"""pipeline/values.py: the types a report holds, named for the outputs (render/ and formats/
import the pipeline and base/ alone): each is the stage's own, never a copy."""

import importlib

from pinreport.pipeline import values


def test_every_value_is_the_one_its_stage_defines():
    assert values.__all__ == sorted(values.__all__, key=lambda n: (not n.isupper(), n))
    for name in values.__all__:
        value = getattr(values, name)
        module = getattr(value, "__module__", None)
        if module is None or not module.startswith("pinreport."):  # a constant, a type alias
            continue
        assert module != values.__name__, name
        assert getattr(importlib.import_module(module), name.removeprefix("BUDGET_")) is value or isinstance(
            value, str
        ), name


def test_the_outputs_read_the_pipeline_alone():
    """What render/ and formats/ import of pinreport: base/ and pipeline/ (ci/check_layers.py
    fails on anything else; this names the rule where a reader of the outputs looks)."""
    import ast
    from pathlib import Path

    package = Path(values.__file__).parents[1]
    found = set()
    for folder in ("render", "formats"):
        for path in (package / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pinreport."):
                    found.add(node.module.split(".")[1])
    assert found <= {"base", "pipeline", "render", "formats"}, found
