#!/usr/bin/env python3
"""What each exit code of the nightly script makes of a nightly workflow's job: green or red, and
which step says why. actionlint checks that a workflow is well formed; this checks what it does.

    ci/workflow_outcomes.py [WORKFLOW...]     (default: .github/workflows/nightly-*.yml)

For the job `nightly` of each workflow and each exit code in CODES, the steps are walked as the
runner walks them. The step `id: nightly` (the one that runs ci/nightly.sh or ci/nightly.ps1) is
run with the script standing in for a night that ends with that code: a bash step for real
(`bash -e -o pipefail`, with a stand-in `ci/nightly.sh`, as the runner runs it), a Windows
PowerShell step by a small interpreter that knows only the statements such a step needs (any
other line is refused, so a new statement must be taught here first). What the step writes to
GITHUB_OUTPUT becomes `steps.nightly.outputs`. Every later step's `if:` is evaluated as GitHub
evaluates it (a condition without a status function means `success() && (...)`); a `run:` step
that runs is taken to succeed. The job is red when a step failed without `continue-on-error`.

The rule it checks: the job is green for exit 0 only; for 1 to 4, exactly the step whose name
says `(exit N)` runs; for any other code (130 and 143: a cancelled night; 137, 255, none) the
step named "Cancelled or unknown outcome" runs. Prints one line per code; exit 1 when the rule
fails, 2 when a workflow cannot be read.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# 0 and the documented codes, two cancelled nights (SIGINT, SIGTERM), a killed one, and a code
# no script documents.
CODES = (0, 1, 2, 3, 4, 130, 143, 137, 255)
SCRIPT = re.compile(r"ci[\\/]nightly\.(sh|ps1)\b")


def load(path: Path) -> dict:
    from ruamel.yaml import YAML  # comes with check-jsonschema (ci/requirements.txt)

    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


# --- GitHub's expression language, the part `if:` conditions use ------------------------------

TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<number>-?\d+(?:\.\d+)?)|(?P<op>==|!=|&&|\|\||[!(),<>])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*))"
)


@dataclass
class Context:
    status: str  # "success" or "failure": the job so far
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)  # step id -> outputs

    def value(self, name: str) -> object:
        parts = name.split(".")
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.outputs.get(parts[1], {}).get(parts[3], "")
        if name in ("true", "false"):
            return name == "true"
        if name == "null":
            return None
        raise ValueError(f"this checker does not know the context value {name!r}")


def tokens(text: str) -> list[tuple[str, str]]:
    out, at = [], 0
    text = text.strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    while at < len(text):
        match = TOKEN.match(text, at)
        if not match or match.end() == at:
            if text[at:].strip() == "":
                break
            raise ValueError(f"cannot read the condition {text!r} at {text[at:]!r}")
        kind = match.lastgroup
        out.append((kind, match.group(kind)))
        at = match.end()
    return out


def as_string(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def equal(a: object, b: object) -> bool:
    # GitHub compares strings case-insensitively; other types by value after coercion.
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    if isinstance(a, list) or isinstance(b, list):
        return a is b
    try:
        return float(as_string(a) or 0) == float(as_string(b) or 0)
    except ValueError:
        return False


def truthy(value: object) -> bool:
    return value not in (False, None, "", 0) and value == value  # NaN is falsy


class Expression:
    """A recursive-descent reader of `a || b`, `a && b`, `!a`, `a == b`, `a != b`, calls and
    literals, with the status functions answered from the context."""

    def __init__(self, text: str, context: Context):
        self.tokens = tokens(text)
        self.at = 0
        self.context = context
        self.status_function = False

    def peek(self) -> str:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else ""

    def take(self) -> tuple[str, str]:
        self.at += 1
        return self.tokens[self.at - 1]

    def evaluate(self) -> object:
        value = self.or_()
        if self.at != len(self.tokens):
            raise ValueError(f"unexpected {self.peek()!r}")
        return value

    def or_(self) -> object:
        left = self.and_()
        while self.peek() == "||":
            self.take()
            right = self.and_()
            left = left if truthy(left) else right
        return left

    def and_(self) -> object:
        left = self.compare()
        while self.peek() == "&&":
            self.take()
            right = self.compare()
            left = right if truthy(left) else left
        return left

    def compare(self) -> object:
        left = self.unary()
        while self.peek() in ("==", "!="):
            op = self.take()[1]
            right = self.unary()
            left = equal(left, right) if op == "==" else not equal(left, right)
        return left

    def unary(self) -> object:
        if self.peek() == "!":
            self.take()
            return not truthy(self.unary())
        return self.primary()

    def primary(self) -> object:
        kind, text = self.take()
        if text == "(":
            value = self.or_()
            self.take()  # ")"
            return value
        if kind == "string":
            return text[1:-1].replace("''", "'")
        if kind == "number":
            return float(text)
        if self.peek() == "(":
            self.take()
            args = []
            while self.peek() != ")":
                args.append(self.or_())
                if self.peek() == ",":
                    self.take()
            self.take()
            return self.call(text, args)
        return self.context.value(text)

    def call(self, name: str, args: list[object]) -> object:
        lowered = name.lower()
        if lowered in ("success", "failure", "always", "cancelled"):
            self.status_function = True
            return {
                "success": self.context.status == "success",
                "failure": self.context.status == "failure",
                "always": True,
                "cancelled": False,
            }[lowered]
        if lowered == "fromjson":
            import json

            return json.loads(as_string(args[0]))
        if lowered == "contains":
            haystack, needle = args
            if isinstance(haystack, list):
                return any(equal(item, needle) for item in haystack)
            return as_string(needle).lower() in as_string(haystack).lower()
        raise ValueError(f"this checker does not know the function {name}()")


def condition_holds(condition: object, context: Context) -> bool:
    if condition is None:
        return context.status == "success"
    if isinstance(condition, bool):
        return condition and context.status == "success"
    expression = Expression(str(condition), context)
    value = truthy(expression.evaluate())
    if not expression.status_function:  # GitHub's implicit success() &&
        return value and context.status == "success"
    return value


# --- The nightly step, as the runner runs it with the script ending in CODE ----------------------


def run_bash_step(script: str, code: int) -> tuple[int, dict[str, str]]:
    """The step for real: bash -e -o pipefail (GitHub's bash), ci/nightly.sh a stand-in."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "ci").mkdir()
        stand_in = work / "ci" / "nightly.sh"
        stand_in.write_text(f"#!/bin/sh\nexit {code}\n")
        stand_in.chmod(0o755)
        output = work / "github_output"
        output.touch()
        step = work / "step.sh"
        step.write_text(script)
        env = {**os.environ, "GITHUB_OUTPUT": str(output), "SCENARIO": "s.yaml", "STORE_HOME": "store"}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", str(step)], cwd=work, env=env, capture_output=True
        )
        return done.returncode, read_outputs(output.read_text(encoding="utf-8", errors="replace"))


def read_outputs(text: str) -> dict[str, str]:
    outputs = {}
    for line in text.splitlines():
        if "=" in line:
            key, value = line.split("=", 1)
            outputs[key] = value
    return outputs


PS_ASSIGN_PATH = re.compile(r"^\$(\w+) = \((?:Get-Item|Resolve-Path) [^)]*\)\.(?:FullName|Path)$")
PS_CALL = re.compile(r"^(?:&\s*)?(?:powershell(?:\.exe)? [^\n]*-File )?\.?[\\/]?ci[\\/]nightly\.ps1\b")
PS_SAVE_CODE = re.compile(r"^\$(\w+) = \$LASTEXITCODE$")
PS_ADD_CONTENT = re.compile(
    r'^Add-Content -Path \$env:GITHUB_OUTPUT -Value "(\w+)=\$(\w+)" -Encoding (ascii|utf8NoBOM)$', re.I
)
PS_OUT_FILE = re.compile(r'^"(\w+)=\$(\w+)" \| Out-File -Append -Encoding (\w+) \$env:GITHUB_OUTPUT$', re.I)
PS_EXIT = re.compile(r"^exit (?:(\d+)|\$(\w+))$")


def run_powershell_step(script: str, code: int, shell: str) -> tuple[int, dict[str, str]]:
    """Windows PowerShell 5.1 (`shell: powershell`) or PowerShell 7 (`pwsh`) running the step,
    for the statements such a step needs; a line it does not know is refused (ValueError)."""
    variables: dict[str, object] = {"LASTEXITCODE": None}
    outputs: dict[str, str] = {}
    for raw in script.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if PS_ASSIGN_PATH.match(line):
            continue
        if PS_CALL.match(line):
            variables["LASTEXITCODE"] = code
            continue
        if match := PS_SAVE_CODE.match(line):
            variables[match.group(1)] = variables["LASTEXITCODE"]
            continue
        if match := PS_ADD_CONTENT.match(line):
            outputs[match.group(1)] = as_string(variables.get(match.group(2)))
            continue
        if match := PS_OUT_FILE.match(line):
            # Windows PowerShell 5.1's utf8 writes a byte order mark first: the runner then reads
            # the name as "\ufeffexit_code", and steps.nightly.outputs.exit_code stays empty.
            bom = shell == "powershell" and match.group(3).lower() == "utf8" and not outputs
            key = ("\ufeff" if bom else "") + match.group(1)
            outputs[key] = as_string(variables.get(match.group(2)))
            continue
        if match := PS_EXIT.match(line):
            value = int(match.group(1)) if match.group(1) else variables.get(match.group(2))
            return int(value) if value is not None else 0, outputs
        raise ValueError(f"this checker does not know the PowerShell line {line!r}")
    # GitHub appends `if ((Test-Path -LiteralPath variable:\\LASTEXITCODE)) { exit $LASTEXITCODE }`.
    last = variables["LASTEXITCODE"]
    return (int(last) if last is not None else 0), outputs


def run_step_fails(script: str) -> bool:
    """Another `run:` step (one that prints an annotation): it fails when its last statement is
    `exit N` with N other than 0 (the steps that turned a code into a red job did so)."""
    lines = [line.strip() for line in script.splitlines() if line.strip() and not line.strip().startswith("#")]
    match = re.fullmatch(r"exit (\d+)", lines[-1]) if lines else None
    return bool(match and int(match.group(1)) != 0)


@dataclass
class Outcome:
    code: int
    green: bool
    explained_by: list[str]  # the names of the `if:` steps after the nightly step that ran


def walk(job: dict, shell: str, code: int) -> Outcome:
    context = Context(status="success")
    seen_nightly = False
    explained: list[str] = []
    for step in job["steps"]:
        if not condition_holds(step.get("if"), context):
            continue
        name = step.get("name", step.get("uses", ""))
        failed = False
        if step.get("id") == "nightly":
            seen_nightly = True
            step_shell = step.get("shell", shell)
            if step_shell == "bash":
                rc, outputs = run_bash_step(step["run"], code)
            elif step_shell in ("powershell", "pwsh"):
                rc, outputs = run_powershell_step(step["run"], code, step_shell)
            else:
                raise ValueError(f"the nightly step's shell {step_shell!r} is not one this checker runs")
            context.outputs["nightly"] = outputs
            failed = rc != 0
        elif "run" in step:
            if seen_nightly and "if" in step:
                explained.append(name)
            failed = run_step_fails(step["run"])
        if failed and not step.get("continue-on-error", False):
            context.status = "failure"
    if not seen_nightly:
        raise ValueError("no step with id 'nightly'")
    return Outcome(code, context.status == "success", explained)


def expected_explanation(code: int) -> str:
    return f"(exit {code})" if 1 <= code <= 4 else "Cancelled or unknown outcome"


def check(path: Path) -> list[str]:
    workflow = load(path)
    job = workflow["jobs"]["nightly"]
    shell = job.get("defaults", {}).get("run", {}).get("shell", "bash")
    problems = []
    for code in CODES:
        outcome = walk(job, shell, code)
        verdict = "green" if outcome.green else "red"
        print(f"workflow_outcomes: {path.name}: exit {code}: job {verdict}, explained by {outcome.explained_by}")
        if outcome.green != (code == 0):
            problems.append(f"{path.name}: a night ending with exit {code} leaves the job {verdict}")
        want = expected_explanation(code)
        if code != 0 and (len(outcome.explained_by) != 1 or want not in outcome.explained_by[0]):
            problems.append(f"{path.name}: exit {code}: steps {outcome.explained_by} ran, expected one naming {want!r}")
        if code == 0 and outcome.explained_by:
            problems.append(f"{path.name}: exit 0 ran {outcome.explained_by}")
    return problems


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    paths = [Path(a) for a in args] or sorted((ROOT / ".github" / "workflows").glob("nightly-*.yml"))
    problems = []
    for path in paths:
        try:
            problems += check(path)
        except (OSError, ValueError, KeyError) as e:
            print(f"workflow_outcomes: {path}: {e}", file=sys.stderr)
            return 2
    for p in problems:
        print(f"workflow_outcomes: FAILED {p}", file=sys.stderr)
    if not problems:
        print(f"workflow_outcomes: {len(paths)} workflow(s): green on exit 0 only, every other code explained")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
