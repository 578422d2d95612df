"""Whether a parsed results document is a valid one: the JSON Schema (docs/results.schema.json),
then the rules beyond it that the C++ reader applies too (docs/results-schema.md, "Rules beyond
the schema"). Every rejection is a BadInputError whose message names the file and the JSON path
of the first problem, in the style of the C++ reader.
"""

from typing import Any

from pinreport.base.errors import BadInputError
from pinreport.base.schema import json_path, schema_of

__all__ = ["check_results", "check_results_rules", "check_sample_counts", "json_path", "only_globs"]


def check_sample_counts(doc: dict[str, Any], path: str) -> None:
    """Samples, where given, are one per summarised repeat (as the C++ reader checks)."""
    for i, run in enumerate(doc["runs"]):
        for name, m in run["metrics"].items():
            samples = m.get("samples")
            if isinstance(samples, list) and len(samples) != m["n"]:
                where = json_path(["runs", i, "metrics", name, "samples"])
                raise BadInputError(path, f"{where}: holds {len(samples)} samples where n is {m['n']}")


def only_globs(command: Any) -> list[str]:
    """The --only globs of a recorded command line ("--only G ...", "--only=G"), as the harness
    reads them (only_globs in harness/src/results/results_json.cpp)."""
    globs, in_only = [], False
    for a in command if isinstance(command, list) else []:
        a = str(a)
        if a.startswith("--only="):
            globs.append(a[7:])
            in_only = False
        elif a == "--only":
            in_only = True
        elif in_only and a and not a.startswith("-"):
            globs.append(a)
        else:
            in_only = False
    return globs


def check_results_rules(doc: dict[str, Any], path: str) -> None:
    """The rules of a valid results file beyond its JSON Schema (docs/results-schema.md, "Rules
    beyond the schema"), the same as the C++ reader's (check_results_rules in
    harness/src/results/results_json.cpp); both test against harness/tests/fixtures/results-validity/.
    BadInputError naming the file and the field of the first broken rule."""
    runs = doc["runs"]
    seen: set[str] = set()
    for i, run in enumerate(runs):
        rid, plan_id = run["id"], run["plan"]["id"]
        if rid != plan_id:
            raise BadInputError(path, f"{json_path(['runs', i, 'id'])}: '{rid}' differs from plan.id '{plan_id}'")
        if rid in seen:
            raise BadInputError(path, f"{json_path(['runs', i, 'id'])}: duplicate run id '{rid}'")
        seen.add(rid)
    scenarios = (doc.get("scenario") or {}).get("scenarios")
    # The scenario record names the scenarios the plan came from (a scenario file has at least one).
    named = (
        isinstance(scenarios, list)
        and len(scenarios) > 0
        and all(isinstance(s, dict) and isinstance(s.get("name"), str) for s in scenarios)
    )
    measured = doc.get("backend") == "cuda"
    if named and measured:
        names = {s["name"] for s in scenarios}
        for i, run in enumerate(runs):
            if run["plan"]["scenario"] not in names:
                where = json_path(["runs", i, "plan", "scenario"])
                raise BadInputError(
                    path, f"{where}: '{run['plan']['scenario']}' is not a scenario of scenario.scenarios"
                )
    if doc.get("complete") is not True:
        return
    if doc.get("interrupted") is not None:
        raise BadInputError(path, "complete: true, but interrupted is set (an interrupted file is partial)")
    if not runs:
        raise BadInputError(path, "complete: true, but runs is empty (a complete file holds every planned run)")
    commands = [doc.get("command")] + [p.get("command") for p in doc.get("resumed") or [] if isinstance(p, dict)]
    if named and measured and not any(only_globs(c) for c in commands):
        ran = {run["plan"]["scenario"] for run in runs}
        for k, s in enumerate(scenarios):
            if s["name"] not in ran:
                raise BadInputError(
                    path,
                    f"complete: true, but scenario.scenarios[{k}] ('{s['name']}') has no run "
                    "(a complete file holds every planned run)",
                )


def check_results(doc: dict[str, Any], path: str) -> None:
    """A current-version document against the JSON Schema, then the rules beyond it;
    BadInputError naming the file and the JSON path of the first problem."""
    schema_of("results").check(doc, path)
    check_sample_counts(doc, path)
    check_results_rules(doc, path)
