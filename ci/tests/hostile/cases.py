"""The hostile-input corpus: inputs a careless or unlucky user gives pinbench and
pinreport. Each case names the tool, its arguments, what the work folder holds first (`setup`),
where standard output goes, the exit code the README's table gives for it and the files it may
change. The runner (ci/tests/test_hostile_inputs.py) checks every case for the exit code, no
traceback, no abort (signal), no hang past its bound and no file changed that it was not asked
to write.

In arguments, {w} is the case's work folder, {base} a valid complete results file there
(base.json), {trace} a valid trace (trace.json), {store} an empty store (store/) and {scn} a
valid scenario file (ok.yaml).
"""

import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

MiB = 2**20


@dataclass(frozen=True)
class Case:
    id: str
    tool: str  # "pinbench" or "pinreport"
    args: tuple[str, ...]
    code: int  # the README's exit code for it
    setup: Callable[[Path], None] | None = None
    stdout: str = "pipe"  # pipe | closed | full | epipe
    writes: tuple[str, ...] = ()  # paths (relative to the work folder) it may create or change
    says: str = ""  # a phrase its stderr must hold
    timeout_s: float = 60
    needs: tuple[str, ...] = field(default_factory=tuple)  # "mknod", "dev_full"


# --- setup helpers ----------------------------------------------------------------------------


def text(name: str, content: str | bytes) -> Callable[[Path], None]:
    def make(w: Path) -> None:
        data = content.encode() if isinstance(content, str) else content
        (w / name).write_bytes(data)

    return make


def fifo(name: str) -> Callable[[Path], None]:
    return lambda w: os.mkfifo(w / name)


def folder(name: str) -> Callable[[Path], None]:
    return lambda w: (w / name).mkdir(parents=True)


def sparse(name: str, size: int) -> Callable[[Path], None]:
    def make(w: Path) -> None:
        with open(w / name, "wb") as f:
            f.truncate(size)

    return make


def char_device(name: str) -> Callable[[Path], None]:
    """A node with /dev/full's numbers in the work folder: a tool that replaces it replaces
    only this copy."""
    return lambda w: os.mknod(w / name, 0o666 | stat.S_IFCHR, os.makedev(1, 7))


def symlink(name: str, target: str) -> Callable[[Path], None]:
    return lambda w: (w / name).symlink_to(target)


def edited(name: str, source: str, edit: Callable[[dict], None]) -> Callable[[Path], None]:
    def make(w: Path) -> None:
        doc = json.loads((w / source).read_text())
        edit(doc)
        (w / name).write_text(json.dumps(doc))

    return make


def raw_edit(name: str, source: str, old: str, new: str) -> Callable[[Path], None]:
    def make(w: Path) -> None:
        t = (w / source).read_text()
        assert old in t, old
        (w / name).write_text(t.replace(old, new, 1))

    return make


def both(*steps: Callable[[Path], None]) -> Callable[[Path], None]:
    def make(w: Path) -> None:
        for s in steps:
            s(w)

    return make


def stored(name: str, make_entry: Callable[[Path], None]) -> Callable[[Path], None]:
    """Puts an odd entry named `name` into the store's folder of base.json's release, where
    `store list` and `pinreport compare` of base.json look."""

    def make(w: Path) -> None:
        from pinreport.readers.environment import store_key
        from pinreport.store.files import REAL, entry_path

        doc = json.loads((w / "base.json").read_text())
        p = entry_path(w / "store", store_key(doc["environment"]), doc["started_at"], "0" * 12, REAL).parent / name
        p.parent.mkdir(parents=True, exist_ok=True)
        make_entry(p)

    return make


def _set(path, value):
    def edit(doc):
        d = doc
        for p in path[:-1]:
            d = d[p]
        d[path[-1]] = value

    return edit


SCENARIO = """schema_version: 2
scenarios:
  - name: s
    kind: overhead
    api: cudaMallocHost
    size: {size}
    repeats: {repeats}
"""


def scenario(**kw) -> str:
    values = {"size": "64MiB", "repeats": 3, **kw}
    return SCENARIO.format(**values)


REPLAY = 'replay_script_version: 1\ntransforms:\n  - op: {op}\n    runs: "*"\n    probe: cuda.free\n    {what}\n'


# --- the cases --------------------------------------------------------------------------------

PB, PR = "pinbench", "pinreport"
CASES: list[Case] = []


def case(*args, **kw) -> None:
    CASES.append(Case(*args, **kw))


# "Billion laughs": ten levels of aliases, each nine times the one before.
ALIAS_BOMB = (
    "a: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(9))
    + "schema_version: *j\n"
)

# Scenario files (pinbench plan).
for cid, content in {
    "scenario-empty": "",
    "scenario-binary": b"\x00\xff\xfe\x00garbage\x80\x81",
    "scenario-not-utf8": b"schema_version: 2\nscenarios:\n  - name: \xff\xfe\n",
    "scenario-tab-indent": "schema_version: 2\nscenarios:\n\t- name: s\n",
    "scenario-a-list": "- 1\n- 2\n",
    "scenario-version-99": scenario().replace("schema_version: 2", "schema_version: 99"),
    "scenario-version-string": scenario().replace("schema_version: 2", "schema_version: two"),
    "scenario-size-2-64": scenario(size="18446744073709551616B"),
    "scenario-size-negative": scenario(size="-64MiB"),
    "scenario-size-nan": scenario(size=".nan"),
    "scenario-size-zero": scenario(size="0B"),
    "scenario-size-fraction-byte": scenario(size="0.5B"),
    "scenario-size-unit-typo": scenario(size="64Mib"),
    "scenario-repeats-huge": scenario(repeats="99999999999999999999"),
    "scenario-repeats-negative": scenario(repeats=-3),
    "scenario-repeats-nan": scenario(repeats=".nan"),
    "scenario-repeats-float": scenario(repeats=2.5),
    "scenario-unknown-kind": scenario().replace("kind: overhead", "kind: overheads"),
    "scenario-unknown-key": scenario() + "    colour: blue\n",
    "scenario-matrix-explosion": scenario(size="[" + ", ".join(f"{i + 1}MiB" for i in range(20000)) + "]"),
    "scenario-alias-bomb": ALIAS_BOMB,
    "scenario-nested-10000": "[" * 10000 + "]" * 10000,
    "scenario-duplicate-key": scenario().replace("    repeats: 3\n", "    repeats: 3\n    repeats: 4\n"),
    "scenario-timeout-nan": scenario() + "    timeout_s: .nan\n",
    "scenario-timeout-inf": scenario() + "    timeout_s: .inf\n",
    "scenario-nul-byte": scenario().replace("name: s", 'name: "s\\0t"'),
}.items():
    case(cid, PB, ("plan", "{w}/in.yaml"), 2, setup=text("in.yaml", content), timeout_s=15)

case("scenario-dev-zero", PB, ("plan", "/dev/zero"), 2, timeout_s=15)
case("scenario-directory", PB, ("plan", "{w}"), 2)
case("scenario-fifo", PB, ("plan", "{w}/in.yaml"), 2, setup=fifo("in.yaml"), timeout_s=10)
case(
    "scenario-too-large",
    PB,
    ("plan", "{w}/in.yaml"),
    2,
    setup=text("in.yaml", scenario() + ("#" * 1023 + "\n") * 17 * 1024),
)
case("scenario-missing", PB, ("plan", "{w}/nothing.yaml"), 2)
case(
    "scenario-expect-typo",
    PB,
    ("plan", "{w}/in.yaml"),
    2,
    setup=text("in.yaml", scenario() + "    expect:\n      WDDM: {max_overhaed_ratio: 0.2}\n"),
)

# Options of pinbench run (refused before any GPU is looked for).
for cid, opts in {
    "run-repeat-timeout-nan": ("--repeat-timeout", "nan"),
    "run-repeat-timeout-negative": ("--repeat-timeout", "-5"),
    "run-repeat-timeout-1e400": ("--repeat-timeout", "1e400"),
    "run-retry-wait-nan": ("--retry-wait", "nan"),
    "run-null-every-nan": ("--null-every", "nan"),
    "run-null-every-inf": ("--null-every", "inf"),
    "run-watch-interval-negative": ("--watch-interval", "-1"),
    "run-disturbance-retries-huge": ("--disturbance-retries", "99999999999999999999"),
    "run-control-size-2-64": ("--control-size", "18446744073709551616B"),
    "run-tolerance-negative": ("--tolerance", "-2MiB"),
    "run-only-empty-match": ("--only", "no-such-run/*"),
}.items():
    case(cid, PB, ("run", "{scn}", "-o", "{w}/out.json", *opts), 2, timeout_s=15)

# Replay scripts and the replay backend's inputs and output path.
REPLAY_RUN = ("run", "--backend", "replay", "--from", "{base}", "--script", "{w}/r.yaml")
for cid, content in {
    "replay-offset-overflow": REPLAY.format(op="offset", what="bytes: -9223372036854775000"),
    "replay-offset-2-64": REPLAY.format(op="offset", what="bytes: 18446744073709551615B"),
    "replay-scale-nan": REPLAY.format(op="scale", what="factor: .nan"),
    "replay-scale-inf": REPLAY.format(op="scale", what="factor: .inf"),
    "replay-scale-1e308": REPLAY.format(op="scale", what="factor: 1e308"),
    "replay-unknown-op": REPLAY.format(op="multiply", what="factor: 2"),
    "replay-version-2": "replay_script_version: 2\n",
    "replay-binary": b"\x00\x01\x02\xff",
    "replay-empty-glob": REPLAY.format(op="offset", what="bytes: 1MiB").replace('runs: "*"', 'runs: ""'),
    "replay-relabel-empty": 'replay_script_version: 1\nrelabel:\n  driver_release: ""\n',
    "replay-relabel-model": "replay_script_version: 1\nrelabel:\n  driver_model: WDDM2\n",
    "replay-inject-unknown": 'replay_script_version: 1\ninject:\n  - what: explode\n    runs: "*"\n',
}.items():
    case(cid, PB, (*REPLAY_RUN, "-o", "{w}/out.json"), 2, setup=text("r.yaml", content), timeout_s=60)
OK_SCRIPT = text("r.yaml", "replay_script_version: 1\n")
case(
    "replay-script-dev-zero",
    PB,
    ("run", "--backend", "replay", "--from", "{base}", "--script", "/dev/zero", "-o", "{w}/out.json"),
    2,
    timeout_s=15,
)
case("replay-script-fifo", PB, (*REPLAY_RUN, "-o", "{w}/out.json"), 2, setup=fifo("r.yaml"), timeout_s=10)
case(
    "replay-from-dev-zero",
    PB,
    ("run", "--backend", "replay", "--from", "/dev/zero", "--script", "{w}/r.yaml", "-o", "{w}/out.json"),
    2,
    setup=OK_SCRIPT,
    timeout_s=15,
)
case(
    "replay-from-directory",
    PB,
    ("run", "--backend", "replay", "--from", "{w}", "--script", "{w}/r.yaml", "-o", "{w}/out.json"),
    2,
    setup=OK_SCRIPT,
)
case("replay-output-directory", PB, (*REPLAY_RUN, "-o", "{w}/outdir"), 2, setup=both(OK_SCRIPT, folder("outdir")))
# A FIFO or a device is written in place, never replaced (issue 57): one that no program reads,
# or /dev/full, is a failed write (3), as in pinreport.
case(
    "replay-output-fifo",
    PB,
    (*REPLAY_RUN, "-o", "{w}/out.fifo"),
    3,
    setup=both(OK_SCRIPT, fifo("out.fifo")),
    says="a FIFO that no program reads",
    timeout_s=60,
)
case(
    "replay-output-device",
    PB,
    (*REPLAY_RUN, "-o", "{w}/full"),
    3,
    setup=both(OK_SCRIPT, char_device("full")),
    needs=("mknod",),
)
# A missing folder is created (harness/cli/output_path.hpp); a file where it must be is refused.
case(
    "replay-output-folder-is-a-file",
    PB,
    (*REPLAY_RUN, "-o", "{w}/no/such/out.json"),
    2,
    setup=both(OK_SCRIPT, text("no", "a file, not a folder\n")),
)
# The output is the run's own replay script (an input refused by identity): refused, the script kept.
case("replay-output-is-its-script", PB, (*REPLAY_RUN, "-o", "{w}/./r.yaml"), 2, setup=OK_SCRIPT)
case(
    "replay-ok",
    PB,
    (*REPLAY_RUN, "-o", "{w}/out.json"),
    0,
    setup=OK_SCRIPT,
    writes=("out.json", "out.summary.md"),
    timeout_s=120,
)

# results upgrade, metrics, plan: inputs and standard output.
case("upgrade-dev-zero", PB, ("results", "upgrade", "/dev/zero"), 2, timeout_s=15)
case("upgrade-directory", PB, ("results", "upgrade", "{w}"), 2)
case(
    "upgrade-too-large",
    PB,
    ("results", "upgrade", "{w}/big.json"),
    2,
    setup=sparse("big.json", 257 * MiB),
    timeout_s=30,
)
case("upgrade-output-directory", PB, ("results", "upgrade", "{base}", "-o", "{w}/outdir"), 2, setup=folder("outdir"))
case("upgrade-output-dash", PB, ("results", "upgrade", "{base}", "-o", "-"), 0)
case("upgrade-closed-stdout", PB, ("results", "upgrade", "{base}"), 3, stdout="closed")
case("upgrade-full-stdout", PB, ("results", "upgrade", "{base}"), 3, stdout="full", needs=("dev_full",))
case("metrics-json-full-stdout", PB, ("metrics", "--json"), 3, stdout="full", needs=("dev_full",))
case("metrics-json-epipe", PB, ("metrics", "--json"), 3, stdout="epipe")
case("plan-closed-stdout", PB, ("plan", "{scn}"), 3, stdout="closed")
case("plan-full-stdout", PB, ("plan", "{scn}"), 3, stdout="full", needs=("dev_full",))

# Results files both tools read (the results files' own rules, and odd documents).
RESULTS_EDITS = {
    "results-duplicate-run-id": lambda d: d["runs"].append(dict(d["runs"][0])),
    "results-complete-no-runs": _set(["runs"], []),
    "results-complete-interrupted": _set(["interrupted"], {"signal": "SIGINT", "at": "x", "run_id": "y", "repeat": 0}),
    "results-runs-a-string": _set(["runs"], "all of them"),
    "results-version-bool": _set(["schema_version"], True),
    "results-version-6": _set(["schema_version"], 6),
    "results-samples-n-mismatch": lambda d: d["runs"][0]["metrics"][next(iter(d["runs"][0]["metrics"]))].update(
        samples=[1.0]
    ),
    "results-environment-a-list": _set(["environment"], []),
    "results-backend-unknown": _set(["backend"], "opencl"),
}
for cid, edit in RESULTS_EDITS.items():
    setup = edited("bad.json", "base.json", edit)
    case(f"{cid}-compare", PR, ("compare", "--store", "{store}", "--current", "{w}/bad.json"), 2, setup=setup)
    case(f"{cid}-store-add", PB, ("store", "add", "{w}/bad.json", "--store", "{store}"), 2, setup=setup)
for cid, (old, new) in {
    "results-nan": ('"complete": true', '"complete": NaN'),
    "results-huge-int": ('"complete": true', '"complete": true, "x": 1' + "0" * 400),
    "results-bom": ("{", "\ufeff{"),
}.items():
    setup = raw_edit("bad.json", "base.json", old, new)
    case(f"{cid}-compare", PR, ("compare", "--store", "{store}", "--current", "{w}/bad.json"), 2, setup=setup)
    case(f"{cid}-upgrade", PB, ("results", "upgrade", "{w}/bad.json"), 2, setup=setup)

# pinreport compare and html: inputs, options and output paths.
CMP = ("compare", "--store", "{store}", "--current")
case("compare-current-dev-zero", PR, (*CMP, "/dev/zero"), 2, timeout_s=15)
case("compare-current-fifo", PR, (*CMP, "{w}/c.json"), 2, setup=fifo("c.json"), timeout_s=10)
case("compare-current-directory", PR, (*CMP, "{w}"), 2)
case("compare-current-too-large", PR, (*CMP, "{w}/c.json"), 2, setup=sparse("c.json", 257 * MiB))
case("compare-current-symlink-loop", PR, (*CMP, "{w}/loop.json"), 2, setup=symlink("loop.json", "loop.json"))
case("compare-store-is-a-file", PR, ("compare", "--store", "{base}", "--current", "{base}"), 2)
case("compare-store-missing", PR, ("compare", "--store", "{w}/nothing", "--current", "{base}"), 2)
for cid, opts in {
    "compare-alpha-nan": ("--alpha", "nan"),
    "compare-alpha-one": ("--alpha", "1"),
    "compare-floor-negative": ("--floor", "-0.1"),
    "compare-time-floor-inf": ("--time-floor", "inf"),
    "compare-min-repeats-zero": ("--min-repeats", "0"),
    "compare-min-nights-huge-digits": ("--min-nights", "9" * 5000),
    "compare-band-reversed": ("--band", "0.2,0.1"),
    "compare-band-nan": ("--band", "nan,nan"),
    "compare-band-one-number": ("--band", "0.2"),
    "compare-scenario-floor-no-name": ("--scenario-floor", "=0.1"),
    "compare-scenario-floor-nan": ("--scenario-floor", "s=nan"),
}.items():
    case(cid, PR, (*CMP, "{base}", *opts), 2)
case("compare-junit-directory", PR, (*CMP, "{base}", "--junit", "{w}/jdir"), 2, setup=folder("jdir"))
# A FIFO or a device is written in place, never replaced (the output-path rule, reports/README.md):
# a FIFO no program reads is a failed write, as is /dev/full's (exit 3, one line).
case(
    "compare-junit-fifo",
    PR,
    (*CMP, "{base}", "--junit", "{w}/j.fifo"),
    3,
    setup=fifo("j.fifo"),
    says="a FIFO that no program reads",
    timeout_s=10,
)
case(
    "compare-junit-device",
    PR,
    (*CMP, "{base}", "--junit", "{w}/full"),
    3,
    setup=char_device("full"),
    says="No space left on device",
    needs=("mknod",),
)
# A missing folder is created (the output-path rule, reports/README.md); one that cannot be (a file
# stands where it would go) is refused, nothing written.
case("compare-junit-missing-folder", PR, (*CMP, "{base}", "--junit", "{w}/no/j.xml"), 0, writes=("no", "no/j.xml"))
case("compare-junit-folder-is-a-file", PR, (*CMP, "{base}", "--junit", "{w}/f/j.xml"), 2, setup=text("f", "x"))
case("compare-junit-ok", PR, (*CMP, "{base}", "--junit", "{w}/j.xml"), 0, writes=("j.xml",))
# Issue 57: a file inside the store the command reads, an input through a folder not made yet and
# an empty path are refused before anything is analysed; /dev/null is written in place.
case("compare-junit-store-marker", PR, (*CMP, "{base}", "--junit", "{store}/store.json"), 2, says="inside the store")
case("compare-junit-new-folder-then-input", PR, (*CMP, "{base}", "--junit", "{w}/new/../base.json"), 2)
case("compare-junit-empty", PR, (*CMP, "{base}", "--junit", ""), 2, says="an empty output path")
case("compare-junit-dev-null", PR, (*CMP, "{base}", "--junit", "/dev/null"), 0)
case("compare-store-empty", PR, ("compare", "--store", "", "--current", "{base}"), 2, says="--store is empty")
case(
    "compare-store-past-path-max",
    PR,
    ("compare", "--store", "a/" * 3000, "--current", "{base}"),
    2,
    says="File name too long",
)
case("compare-closed-stdout", PR, (*CMP, "{base}"), 3, stdout="closed")
case("compare-full-stdout", PR, (*CMP, "{base}"), 3, stdout="full", needs=("dev_full",))
case("compare-epipe", PR, (*CMP, "{base}"), 3, stdout="epipe")
HTML = ("html", "--store", "{store}", "--current", "{base}")
case("html-output-directory", PR, (*HTML, "-o", "{w}/out"), 2, setup=folder("out"))
case(
    "html-output-fifo",
    PR,
    (*HTML, "-o", "{w}/out.html"),
    3,
    setup=fifo("out.html"),
    says="a FIFO that no program reads",
    timeout_s=10,
)
case("html-output-missing-folder", PR, (*HTML, "-o", "{w}/no/out.html"), 0, writes=("no", "no/out.html"))
case("html-output-folder-is-a-file", PR, (*HTML, "-o", "{w}/f/out.html"), 2, setup=text("f", "x"))
case(
    "html-bench-dev-zero", PR, (*HTML, "--bench", "/dev/zero", "-o", "{w}/r.html"), 2, writes=("r.html",), timeout_s=15
)
case(
    "html-bench-garbage",
    PR,
    (*HTML, "--bench", "{w}/b.json", "-o", "{w}/r.html"),
    2,
    setup=text("b.json", '{"benchmarks": 5}'),
    writes=("r.html",),
)
# A link is followed: the file it leads to is replaced, the link stays.
case(
    "html-ok-replaces-a-symlinked-report",
    PR,
    (*HTML, "-o", "{w}/link.html"),
    0,
    setup=both(text("real.html", "old"), symlink("link.html", "real.html")),
    writes=("real.html",),
)

# pinreport reserve: sizes and counts.
for cid, size in {
    "reserve-size-2-64": "18446744073709551616B",
    "reserve-size-negative": "-1GiB",
    "reserve-size-nan": "nanGiB",
    "reserve-size-5000-digits": "1" * 5000 + "B",
    "reserve-size-no-unit": "2048",
    "reserve-size-zero": "0GiB",
}.items():
    case(cid, PR, ("reserve", "--store", "{store}", "--size", size), 2)
case("reserve-gpus-zero", PR, ("reserve", "--store", "{store}", "--size", "1GiB", "--gpus", "0"), 2)
case("reserve-gpus-huge", PR, ("reserve", "--store", "{store}", "--size", "1GiB", "--gpus", "10" + "0" * 30), 2)
case("reserve-confidence-nan", PR, ("reserve", "--store", "{store}", "--size", "1GiB", "--confidence", "nan"), 2)

# Traces (pinreport trace).
TRACE_EDITS = {
    "trace-calls-a-string": _set(["calls"], "many"),
    "trace-bytes-with-unit": lambda d: d["calls"][0].update(bytes="4GiB"),
    "trace-cost-at-peak-null": _set(["cost_at_peak"], None),
    "trace-peak-bytes-negative": lambda d: d["pinned"].update(peak_bytes=-5),
    "trace-timeline-strings": lambda d: d["pinned"].update(timeline=[["x", "y"]]),
    "trace-process-key-not-a-pid": lambda d: d["device"]["samples"][0]["devices"][0].update(processes={"me": 1}),
    "trace-tracing-a-number": _set(["tracing"], 7),
    "trace-version-2": _set(["version"], 2),
}
for cid, edit in TRACE_EDITS.items():
    case(cid, PR, ("trace", "{w}/bad.json", "--store", "{store}"), 2, setup=edited("bad.json", "trace.json", edit))
case("trace-dev-zero", PR, ("trace", "/dev/zero", "--store", "{store}"), 2, timeout_s=15)
case("trace-fifo", PR, ("trace", "{w}/t.json", "--store", "{store}"), 2, setup=fifo("t.json"), timeout_s=10)
case("trace-too-large", PR, ("trace", "{w}/t.json", "--store", "{store}"), 2, setup=sparse("t.json", 17 * MiB))
case(
    "trace-html-directory", PR, ("trace", "{trace}", "--store", "{store}", "--html", "{w}/out"), 2, setup=folder("out")
)

# pinbench budget documents (pinreport summary/html --budget, budget-compare).
case("budget-compare-dev-zero", PR, ("budget-compare", "/dev/zero", "/dev/zero"), 2, timeout_s=15)
case("budget-compare-fifo", PR, ("budget-compare", "{w}/b.json", "{w}/b.json"), 2, setup=fifo("b.json"), timeout_s=10)
case("budget-compare-a-results-file", PR, ("budget-compare", "{base}", "{base}"), 2)
case("summary-budget-dev-zero", PR, ("summary", "{base}", "--budget", "/dev/zero"), 2, timeout_s=15)
case(
    "html-budget-fifo",
    PR,
    ("html", "--store", "{store}", "--current", "{base}", "--budget", "{w}/b.json", "-o", "{w}/r.html"),
    2,
    setup=fifo("b.json"),
    timeout_s=10,
)

# pinreport aa.
case("aa-dev-zero", PR, ("aa", "/dev/zero", "{base}"), 2, timeout_s=15)
case(
    "aa-duplicate-run-id",
    PR,
    ("aa", "{w}/bad.json", "{base}"),
    2,
    setup=edited("bad.json", "base.json", RESULTS_EDITS["results-duplicate-run-id"]),
)

# Stores with odd entries, and stores that are not there.
case("store-list-missing", PB, ("store", "list", "--store", "{w}/TYPO"), 2)
case(
    "store-add-invalid-missing-store",
    PB,
    ("store", "add", "{w}/bad.json", "--store", "{w}/NEW"),
    2,
    setup=text("bad.json", "{}"),
)
ODD = {
    "store-fifo-entry": stored("x.json", lambda p: os.mkfifo(p)),
    "store-directory-entry": stored("x.json", lambda p: p.mkdir()),
    "store-symlink-loop-entry": stored("x.json", lambda p: p.symlink_to(p)),
    "store-dev-zero-entry": stored("x.json", lambda p: p.symlink_to("/dev/zero")),
}
for cid, setup in ODD.items():
    case(f"{cid}-list", PB, ("store", "list", "--store", "{store}"), 2, setup=setup, timeout_s=10)
    case(f"{cid}-compare", PR, ("compare", "--store", "{store}", "--current", "{base}"), 2, setup=setup, timeout_s=10)
case(
    "store-json-garbage",
    PR,
    ("compare", "--store", "{store}", "--current", "{base}"),
    2,
    setup=text("store/store.json", "\x00\x01"),
)
case(
    "store-json-dev-zero",
    PR,
    ("compare", "--store", "{store}", "--current", "{base}"),
    2,
    setup=lambda w: ((w / "store/store.json").unlink(), (w / "store/store.json").symlink_to("/dev/zero")),
    timeout_s=15,
)
