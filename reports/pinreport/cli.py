"""Command line: a thin layer over the report pipeline (pipeline/), the typed readers (readers/) and the formatters.

  pinreport compare --store DIR --current RESULTS [--junit FILE] [--band 0.10,0.20]
                    [--alpha A] [--floor F] [--time-floor F] [--min-repeats N]
                    [--scenario-floor NAME=F ...]
  pinreport reserve --store DIR --size 2GiB [--gpus 4] [--driver R] [--replay]
  pinreport aa      NIGHT.json NIGHT.json ... (the same verdict options as compare)
  pinreport html    [--store DIR] --current RESULTS [--bench BENCH_JSON ...] [--budget BUDGET] -o report.html
                    (the same verdict options as compare)
  pinreport trace   TRACE [--store DIR] [--html trace.html]   (a `pinbench trace` file, docs/trace.md;
                    with the advice section, and advise's evidence options)
  pinreport advise  TRACE [--store DIR] [--bench BENCH_JSON ...] [--budget BUDGET] [--json]
                    (what to change, what it saves, what it costs in speed; docs/advise.md)
  pinreport summary RESULTS [--store DIR] [--markdown FILE] [--budget BUDGET]
                    (the answer in one screen, answer.py; BUDGET: a `pinbench budget -o` document)
  pinreport budget-compare OLD NEW   (two `pinbench budget` documents, per family: a safe budget
                    that shrank at the driver's limit is a REGRESSION; analysis/budget_compare.py)
  pinreport budget-compare NEW --store DIR   (OLD: the store's budget of the previous release)
  pinreport drivers --store DIR [--markdown FILE] [--json FILE] [--html FILE] [--replay]
                    (every driver release of every machine group, side by side: pipeline/drivers.py)
  pinreport completion bash|zsh   (a shell completion script, as `pinbench completion SHELL`)

Exit codes: 0 nothing regressed and the rule holds; 1 a REGRESSION or a VIOLATION; 2 bad input
(every bad file is named, the rest is still analysed); 3 an infrastructure failure (failed or
timed-out runs, a failed control, missing probes, an interrupted run); 4 an internal error (a
bug in pinreport: the traceback goes to stderr, no verdict is given). The highest applies.
Writing: an output path refused before anything is written (empty, a directory or socket, one
of the command's inputs or a file inside a store it reads) is exit 2; a device or FIFO (/dev/null,
/dev/stdout) is written in place; a write that fails midway (a full disk, a closed pipe or
standard output) is exit 3; each is one line on stderr, never a traceback. An output path ending
in a separator is a folder, created where missing, and gets the command's default file name
(atomic_write.output_path). A signal is exit 128 + N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP, as
pinbench), one line, no file left half written, from the program's first line (start.py,
base/signals.py). Every line goes out through streams.py, each untrusted character escaped
(text.py).
"""

import argparse
import signal
import sys
import traceback
from collections.abc import Sequence
from functools import partial

from pinreport import __version__
from pinreport.advice.command import add_evidence_options, run_advise, traced_advice
from pinreport.advice.command import add_parser as add_advise_parser
from pinreport.analysis.compare import CompareOptions
from pinreport.analysis.fit import DEFAULT_CONFIDENCE
from pinreport.analysis.rule import Band
from pinreport.analysis.stats import (
    DEFAULT_ALPHA,
    DEFAULT_FLOOR,
    DEFAULT_MIN_NIGHTS,
    DEFAULT_MIN_REPEATS,
    DEFAULT_TIME_FLOOR,
    load_libraries,
)
from pinreport.arguments import ArgumentParser, add_completion_command, completion_script
from pinreport.base import signals
from pinreport.base.atomic_write import output_path
from pinreport.base.errors import BadInputError, OutputRefusedError, UsageError, WriteFailedError
from pinreport.base.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_INFRASTRUCTURE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REGRESSION,
    with_bad_input,
)
from pinreport.base.streams import err, finish, out, prepare
from pinreport.base.units import parse_size
from pinreport.formats.console import format_aa, format_compare, format_reserve, format_trace
from pinreport.formats.junit import write_junit
from pinreport.pipeline.commands import aa_report, budget_report, reserve_report, trace_report
from pinreport.pipeline.report import compare_report, run_pipeline, summary_report
from pinreport.readers.budget import BudgetDocument, load_budget
from pinreport.readers.results import ResultsFile, load_results
from pinreport.render.context import page_context
from pinreport.render.page import write_html
from pinreport.store.files import REAL, REPLAY
from pinreport.store.reading import (
    StoreContents,
    read_for_compare,
    read_for_html,
    read_newest_releases,
    store_root_problem,
)

MAX_GPUS = 1024  # reserve --gpus: more GPUs than any one host holds is a typo


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1): {text!r}")
    return value


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0: {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more: {text!r}")
    return value


def _scenario_floor(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=FLOOR, got {text!r}")
    return name, _non_negative(value)


def _add_verdict_options(p: argparse.ArgumentParser) -> None:
    """What decides a verdict; `compare` and `html` take the same, so they judge alike."""
    p.add_argument("--band", default="0.10,0.20", help="reservation band LOWER,UPPER (default 0.10,0.20)")
    p.add_argument("--alpha", type=_fraction, default=DEFAULT_ALPHA, help="Mann-Whitney significance level")
    p.add_argument(
        "--floor",
        type=_non_negative,
        default=DEFAULT_FLOOR,
        help="relative floor of a change (default 0: bytes change by one granule; times take --time-floor)",
    )
    p.add_argument(
        "--time-floor",
        type=_non_negative,
        default=DEFAULT_TIME_FLOOR,
        help="least relative floor of a time metric, a factor either way (1.0: a doubling or a halving, "
        "above the moves measured between machine starts)",
    )
    p.add_argument(
        "--min-repeats",
        type=_positive_int,
        default=DEFAULT_MIN_REPEATS,
        help=f"samples each side needs at least (>= 1, default {DEFAULT_MIN_REPEATS}); alpha decides the rest",
    )
    p.add_argument(
        "--min-nights",
        type=_positive_int,
        default=DEFAULT_MIN_NIGHTS,
        help="stored nights a time metric needs before it is judged against the night-to-night spread (2)",
    )
    p.add_argument(
        "--scenario-floor",
        type=_scenario_floor,
        action="append",
        default=[],
        metavar="NAME=F",
        help="relative floor for one scenario (repeatable)",
    )


def _verdict_options(args: argparse.Namespace) -> CompareOptions:
    return CompareOptions(
        alpha=args.alpha,
        floor=args.floor,
        time_floor=args.time_floor,
        min_repeats=args.min_repeats,
        min_nights=args.min_nights,
        band=Band.parse(args.band),
        scenario_floors=dict(args.scenario_floor),
    )


# The options that name a file a command reads (one file, or a list of them), and the store.
_INPUT_OPTIONS = ("current", "trace", "budget", "old", "new")
_INPUT_LISTS = ("bench", "nights")


def _check_output(args: argparse.Namespace, option: str, default_name: str) -> None:
    """The output path args.<option> names, checked by the one rule (atomic_write.output_path)
    against every file and store this command reads, before anything is analysed: refused with
    exit 2 (an empty path too), else the file to write. Not given (None): no file."""
    given = getattr(args, option)
    if given is None:
        return
    inputs = [getattr(args, n) for n in _INPUT_OPTIONS if isinstance(getattr(args, n, None), str)]
    inputs += [p for n in _INPUT_LISTS for p in getattr(args, n, None) or []]
    stores = [args.store] if isinstance(getattr(args, "store", None), str) else []
    setattr(args, option, str(output_path(given, default_name, inputs, stores)))


def _missing_store(path: str) -> int | None:
    """Exit 2 (one line) where --store cannot be a store (store.reading.store_root_problem)."""
    problem = store_root_problem(path)
    if problem is None:
        return None
    err(f"error: {problem}")
    return EXIT_BAD_INPUT


def _load_inputs(args: argparse.Namespace, read) -> tuple[ResultsFile, StoreContents] | int:
    """The current results file and what `read` (store.read_for_compare / read_for_html) takes
    from the store for it (none without --store: `summary` and `html` judge one file alone), or
    the exit code when the current file is bad."""
    if args.store is not None:
        missing = _missing_store(args.store)
        if missing is not None:
            return missing
    try:
        current = load_results(args.current)
    except BadInputError as e:
        err(f"error: {e}")
        return EXIT_BAD_INPUT
    if args.store is None:
        return current, StoreContents(root="")
    # scipy's import (about a second) while worker processes check the store's files.
    return current, read(args.store, current, meanwhile=load_libraries)


def _load_budget(path: str | None) -> BudgetDocument | None | int:
    """A --budget document, None when none was given, or exit 2 (one line) when it is bad."""
    if path is None:
        return None
    try:
        return load_budget(path)
    except BadInputError as e:
        err(f"error: {e}")
        return EXIT_BAD_INPUT


def _parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="pinreport", description="pinbench analysis: baselines, verdicts, the reservation rule")
    # The version of pinbench too: CMakeLists.txt reads it from pinreport/__init__.py.
    p.add_argument("-V", "--version", action="version", version=f"pinreport {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compare", help="verdicts of a results file against the baseline store")
    c.add_argument("--store", required=True, complete="folder", help="baseline store directory")
    c.add_argument("--current", required=True, complete="file", help="results file to judge")
    c.add_argument("--junit", complete="file", help="also write the verdicts as JUnit XML here")
    _add_verdict_options(c)
    h = sub.add_parser("html", help="one self-contained HTML page: verdict, controls, charts, claims")
    h.add_argument("--store", complete="folder", help="baseline store directory (without it: the results file alone)")
    h.add_argument("--current", required=True, complete="file", help="results file to report on")
    h.add_argument(
        "--bench", action="append", default=[], complete="file", help="Google Benchmark JSON file (repeatable)"
    )
    h.add_argument("-o", "--output", required=True, complete="file", help="HTML file to write")
    h.add_argument("--budget", complete="file", help="a `pinbench budget -o` document: its line on the first screen")
    h.add_argument(
        "--drivers-table", metavar="HREF", help="link the page to the driver table (pinreport drivers --html)"
    )
    _add_verdict_options(h)
    r = sub.add_parser("reserve", help="VRAM to reserve for pinned memory, from the cost fits")
    r.add_argument("--store", required=True, complete="folder", help="baseline store directory")
    r.add_argument("--size", required=True, help="pinned size, e.g. 2GiB")
    r.add_argument("--gpus", type=int, default=1, help=f"GPUs that use the pinned buffer (1 to {MAX_GPUS})")
    r.add_argument("--driver", help="driver release (default: the highest stored per machine)")
    r.add_argument("--replay", action="store_true", help="fit the replay namespace (labelled REPLAYED)")
    r.add_argument("--confidence", type=_fraction, default=DEFAULT_CONFIDENCE, help="prediction bound level")
    t = sub.add_parser("trace", help="a pinbench trace against the store's cost fit for its driver and GPU")
    t.add_argument("trace", complete="file", help="trace file written by `pinbench trace`")
    t.add_argument("--html", complete="file", help="also write one self-contained HTML page here")
    add_evidence_options(t)
    add_advise_parser(sub)
    s = sub.add_parser("summary", help="the answer in one screen: cost per pinned GiB, rule, reserve, changes")
    s.add_argument("current", complete="file", help="results file")
    s.add_argument(
        "--store", complete="folder", help="baseline store directory (what changed since the previous release)"
    )
    s.add_argument("--markdown", complete="file", help="also write the summary as Markdown here")
    s.add_argument("--budget", complete="file", help="a `pinbench budget -o` document: the safe budget in one line")
    _add_verdict_options(s)
    b = sub.add_parser("budget-compare", help="two `pinbench budget` documents: a shrunk safe budget is a REGRESSION")
    b.add_argument(
        "documents",
        nargs="+",
        metavar="[OLD] NEW",
        complete="file",
        help="the earlier release's budget (not with --store), then the one to judge",
    )
    b.add_argument(
        "--store",
        complete="folder",
        help="baseline store: OLD is its newest budget of the previous release of NEW's machine",
    )
    d = sub.add_parser("drivers", help="every driver release a store holds, per machine group, side by side")
    d.add_argument("--store", required=True, complete="folder", help="baseline store directory")
    d.add_argument("--markdown", complete="file", help="also write the table as Markdown here")
    d.add_argument("--json", complete="file", help="also write the table as JSON here (schema pinreport.drivers)")
    d.add_argument("--html", complete="file", help="also write the table and its charts as one HTML page here")
    d.add_argument("--replay", action="store_true", help="also show the replayed nights (labelled, never a baseline)")
    d.add_argument(
        "--report-url",
        help="link each night to its report: a template of {platform} {driver_model} {gpu} {gpu_count} "
        "{release} {time} {measurement_id} (default: its row of the table)",
    )
    d.add_argument(
        "--max-releases", type=_positive_int, help="in the Markdown, the newest N releases of each group (default: all)"
    )
    _add_verdict_options(d)
    a = sub.add_parser("aa", help="A/A check on real nights of one release: false alarms, judged metrics, detection")
    a.add_argument("nights", nargs="+", complete="file", help="results files of one machine and release, one per night")
    _add_verdict_options(a)
    add_completion_command(sub)
    return p


def _run_aa(args: argparse.Namespace) -> int:
    options = _verdict_options(args)
    nights, problems = [], []
    for path in args.nights:
        try:
            nights.append(load_results(path))
        except BadInputError as e:
            problems.append(e)
    if not problems:
        try:
            results = aa_report(nights, options)
        except BadInputError as e:
            problems.append(e)
    if problems:
        for e in problems:
            err(f"error: {e}")
        return EXIT_BAD_INPUT
    out(format_aa(results, options))
    return EXIT_REGRESSION if any(r.false_alarms for r in results) else EXIT_OK


def _run_compare(args: argparse.Namespace) -> int:
    options = _verdict_options(args)  # bad options are reported before any file is read
    _check_output(args, "junit", "verdicts.xml")  # refused before anything is analysed
    inputs = _load_inputs(args, read_for_compare)
    if isinstance(inputs, int):
        return inputs
    current, store = inputs
    report = compare_report(current, store, options)
    out(format_compare(report.compared))
    if args.junit is not None:
        write_junit(report.compared, args.junit)
    return report.exit_code


def _run_html(args: argparse.Namespace) -> int:
    """Writes the page and exits as `compare` would for the same inputs."""
    options = _verdict_options(args)
    _check_output(args, "output", "report.html")  # before the analysis
    budget = _load_budget(args.budget)
    if isinstance(budget, int):
        return budget
    # Many nights of history: from the history index (store/history_index.py), each file checked once.
    inputs = _load_inputs(args, read_for_html)
    if isinstance(inputs, int):
        return inputs
    current, store = inputs
    context = page_context(
        run_pipeline(current, store, args.bench, options, budget=budget, stored=args.store is not None)
    )
    context["drivers_table"] = args.drivers_table  # where every release of the store is (docs/drivers.md)
    write_html(context, args.output)
    for problem in context["bad_input"]:
        err(f"error: {problem}")
    out(f"{args.output}: {context['verdict']}{' (REPLAYED DATA)' if context['replayed'] else ''}\n")
    return context["exit_code"]  # with the bad inputs named: the code the page's banner shows


def _run_reserve(args: argparse.Namespace) -> int:
    size = parse_size(args.size)
    if not 1 <= args.gpus <= MAX_GPUS:
        raise UsageError(f"--gpus must be 1 to {MAX_GPUS}: {args.gpus}")
    missing = _missing_store(args.store)
    if missing is not None:
        return missing
    store = read_newest_releases(args.store, REPLAY if args.replay else REAL, args.driver)
    for problem in store.problems:
        err(f"error: {problem}")
    report = reserve_report(store, size, args.gpus, args.confidence, replayed=args.replay)
    out(format_reserve(report))
    if not report.recommendations:
        what = f"driver {args.driver}" if args.driver else "any driver"
        err(f"error: {args.store}: no stored results of {what} allow a fit")
        return EXIT_BAD_INPUT
    return EXIT_BAD_INPUT if store.problems else EXIT_OK


def _run_summary(args: argparse.Namespace) -> int:
    """Prints the answer (and writes it as Markdown); exits as `compare` would."""
    from pinreport.formats.console import format_summary
    from pinreport.formats.markdown import write_summary_markdown

    options = _verdict_options(args)
    _check_output(args, "markdown", "summary.md")  # refused before anything is analysed
    budget = _load_budget(args.budget)
    if isinstance(budget, int):
        return budget
    inputs = _load_inputs(args, read_for_compare)
    if isinstance(inputs, int):
        return inputs
    current, store = inputs
    report = summary_report(current, store, options, budget=budget, stored=args.store is not None)
    out(format_summary(report.answer))
    for problem in report.compared.bad_input:
        err(f"error: {problem}")
    if args.markdown is not None:
        write_summary_markdown(report.answer, args.markdown)  # its path was checked before the analysis
    return report.exit_code


def _run_budget_compare(args: argparse.Namespace) -> int:
    """Per family: REGRESSION (exit 1), IMPROVEMENT, SAME or not comparable (docs/budget.md); with
    --store, OLD is the store's newest budget of the previous release of NEW's machine group."""
    from pinreport.formats.console import format_budget_compare

    wanted = 1 if args.store else 2
    if len(args.documents) != wanted:
        raise UsageError(
            "budget-compare takes NEW with --store, OLD NEW without it" + f" (got {len(args.documents)} documents)"
        )
    if args.store:
        return _run_budget_compare_stored(args)
    docs, code = [], EXIT_OK
    for path in args.documents:
        loaded = _load_budget(path)
        if isinstance(loaded, int):
            code = loaded  # every bad file is named before exiting
        else:
            docs.append(loaded)
    if code != EXIT_OK:
        return code
    report = budget_report(*docs)
    out(format_budget_compare(report))
    return report.exit_code


def _run_budget_compare_stored(args: argparse.Namespace) -> int:
    from pinreport.formats.console import format_budget_compare
    from pinreport.store.reading import previous_budget

    missing = _missing_store(args.store)
    if missing is not None:
        return missing
    new = _load_budget(args.documents[0])
    if isinstance(new, int):
        return new
    old, problems = previous_budget(args.store, new)
    for problem in problems:
        err(f"error: {problem}")
    if old is None:
        out(f"{new.path}: no budget of an earlier release of {new.environment.key.describe_group()} in {args.store}\n")
        return with_bad_input(EXIT_OK, bool(problems))
    report = budget_report(old.budget, new)
    out(format_budget_compare(report))
    return with_bad_input(report.exit_code, bool(problems))


def _run_drivers(args: argparse.Namespace) -> int:
    """The driver table (pipeline/drivers.py): text always, and each file asked for. Exit 0 however
    the releases compare (the nightly's verdict is compare's); 2 when a stored file is bad."""
    from pinreport.formats.drivers_console import format_drivers
    from pinreport.formats.drivers_json import write_drivers_json
    from pinreport.formats.drivers_markdown import write_drivers_markdown
    from pinreport.pipeline.drivers import DERIVE, build_driver_table, group_value, memo_of, rows_of_value
    from pinreport.render.drivers_page import URL_FIELDS, write_drivers_html
    from pinreport.store.reading import older_nights_folded, read_for_drivers

    options = _verdict_options(args)
    if args.report_url:
        try:
            args.report_url.format(**{f: "" for f in URL_FIELDS})
        except (KeyError, IndexError, ValueError) as e:
            raise UsageError(f"--report-url: not a template of {', '.join(URL_FIELDS)}: {e}") from None
    for name, default in (("markdown", "drivers.md"), ("json", "drivers.json"), ("html", "drivers.html")):
        if getattr(args, name):  # refused before anything is read
            setattr(args, name, str(output_path(getattr(args, name), default, [])))
    missing = _missing_store(args.store)
    if missing is not None:
        return missing
    # Per group, its rows from its memo, else from its nights through the history index (each read
    # once) and the verdicts (scipy, for the slopes' bounds: imported there, on first use).
    values, problems = read_for_drivers(
        args.store,
        DERIVE,
        partial(group_value, options=options),
        memo_of(options, args.replay),
        replay=args.replay,
        before_compute=load_libraries,
    )
    rows = []
    for value in values:
        found, bad = rows_of_value(value)
        rows.append(found)
        problems += bad
    problems = older_nights_folded(args.store, problems)
    table = build_driver_table(args.store, rows, problems, options, replay_shown=args.replay)
    out(format_drivers(table))
    if args.markdown:
        write_drivers_markdown(table, args.markdown, args.max_releases)
    if args.json:
        write_drivers_json(table, args.json)
    if args.html:
        write_drivers_html(table, args.html, args.report_url)
    for problem in table.problems:
        err(f"error: {problem}")
    return with_bad_input(EXIT_OK, bool(table.problems))


def _run_trace(args: argparse.Namespace) -> int:
    from pinreport.advice.text import format_advice

    _check_output(args, "html", "trace.html")  # refused before anything is read
    if args.store is not None:
        missing = _missing_store(args.store)
        if missing is not None:
            return missing
    # The fits judge_trace uses, and the advice's evidence (advice/command.py); without --store,
    # the trace's own figures.
    got = traced_advice(args)
    if isinstance(got, int):
        return got
    tf, advice, problems, runs = got
    report = trace_report(tf, (r.results for r in runs), advice, store_given=args.store is not None)
    out(format_trace(report))
    out(format_advice(advice))
    for problem in problems:
        err(f"error: {problem}")
    if args.html is not None:
        from pinreport.render.trace_page import write_trace_html

        write_trace_html(report, args.html)
        out(f"{args.html}: {report.judgement.verdict}\n")
    return with_bad_input(report.exit_code, bool(problems))


def main(argv: Sequence[str] | None = None) -> int:
    prepare()
    try:
        args = _parser().parse_args(argv)
        code = _run(args)
    except SystemExit:  # argparse: --help (0) or a usage error (2), already said
        if finish() is not None:  # --help to a full or closed stdout
            raise SystemExit(EXIT_INFRASTRUCTURE) from None
        raise
    except KeyboardInterrupt:
        # Ctrl-C where cli.main runs without pinreport's own handlers (the program installs them
        # first: start.py, base/signals.py): the same line and code; no file is half written.
        err(signals.stopped_line(signal.SIGINT))
        code = EXIT_INTERRUPTED
    failed = finish()
    if failed is not None:
        err(f"error: (standard output): {failed}")
        code = max(code, EXIT_INFRASTRUCTURE)
    return code


def _run(args: argparse.Namespace) -> int:
    try:
        if args.command == "compare":
            return _run_compare(args)
        if args.command == "html":
            return _run_html(args)
        if args.command == "aa":
            return _run_aa(args)
        if args.command == "trace":
            return _run_trace(args)
        if args.command == "advise":
            return run_advise(args, out)
        if args.command == "summary":
            return _run_summary(args)
        if args.command == "budget-compare":
            return _run_budget_compare(args)
        if args.command == "completion":
            out(completion_script(_parser(), args.shell))
            return EXIT_OK
        if args.command == "drivers":
            return _run_drivers(args)
        return _run_reserve(args)
    except (UsageError, OutputRefusedError) as e:
        err(f"error: {e}")
        return EXIT_BAD_INPUT
    except WriteFailedError as e:
        err(f"error: {e}")
        return EXIT_INFRASTRUCTURE
    except Exception as e:  # noqa: BLE001 - a bug must not read as a verdict (exit 1)
        for line in traceback.format_exc().splitlines():
            err(line)
        err(f"pinreport: internal error (exit {EXIT_INTERNAL}, no verdict given): {type(e).__name__}: {e}")
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
