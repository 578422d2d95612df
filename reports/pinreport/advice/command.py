"""`pinreport advise TRACE [--store DIR] [--bench FILE ...] [--budget FILE] [--json]` and the
evidence options `pinreport trace` shares (docs/advise.md). Reads the files, hands them to
build.build_advice, prints one output; exit codes as cli.py's (0 nothing worth changing, 1 a
change is advised, 2 bad input, every bad file named and the rest still used, 3 no cost figure
at all; the highest applies)."""

import argparse

from pinreport.advice.build import Advice, build_advice
from pinreport.advice.evidence import Benches, StoredRun, load_benches
from pinreport.advice.verdict import SMALL_SHARE
from pinreport.base.errors import BadInputError
from pinreport.base.exit_codes import EXIT_BAD_INPUT, with_bad_input
from pinreport.base.streams import err
from pinreport.base.units import parse_size
from pinreport.readers.budget import BudgetDocument, load_budget
from pinreport.readers.trace import TraceFile, load_trace
from pinreport.store.files import REAL, REPLAY
from pinreport.store.reading import read_release, store_root_problem


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1): {text!r}")
    return value


def add_evidence_options(p: argparse.ArgumentParser) -> None:
    """What the advice rests on; `advise` and `trace` take the same."""
    p.add_argument(
        "--store", complete="folder", help="baseline store directory (optional: the fits, the register-window runs)"
    )
    p.add_argument("--replay", action="store_true", help="use the store's replay namespace (labelled REPLAYED)")
    p.add_argument(
        "--bench",
        action="append",
        default=[],
        complete="file",
        help="transfer_bench / staging_bench JSON of this machine (repeatable)",
    )
    p.add_argument("--budget", complete="file", help="a `pinbench budget -o` document of this machine")
    p.add_argument("--ring", default="64MiB", help="the staging ring to cost (default 64MiB: K 2 x C 32 MiB)")
    p.add_argument("--direction", choices=("h2d", "d2h"), default="h2d", help="the copies' direction (default h2d)")
    p.add_argument(
        "--small",
        type=_share,
        default=SMALL_SHARE,
        help=f"a cost per GPU under this share of its memory is not worth changing (default {SMALL_SHARE})",
    )


def add_parser(sub) -> None:
    a = sub.add_parser("advise", help="what to change in a traced program: what it saves, what it costs in speed")
    a.add_argument("trace", complete="file", help="trace file written by `pinbench trace`")
    add_evidence_options(a)
    a.add_argument("--json", action="store_true", help="print the advice as JSON (docs/advise.md)")


def store_runs(args: argparse.Namespace, trace: TraceFile) -> tuple[list[StoredRun], list[str]] | int:
    """The store's files of the trace's group and release, or exit 2 when --store is no directory."""
    if args.store is None:
        return [], []
    problem = store_root_problem(args.store)
    if problem is not None:
        err(f"error: {problem}")
        return EXIT_BAD_INPUT
    namespace = REPLAY if args.replay else REAL
    store = read_release(args.store, trace.key.group, trace.key.release, namespace)
    runs = [StoredRun(e.path, e.results, e.namespace == REPLAY) for e in store.entries]
    return runs, [str(p) for p in store.problems]


def evidence_advice(args: argparse.Namespace, trace: TraceFile) -> tuple[Advice, list[str], list[StoredRun]] | int:
    """The advice on the evidence the options name, the problems to name (each exit 2) and the
    store's files read (what `trace` judges against)."""
    ring = parse_size(args.ring)
    got = store_runs(args, trace)
    if isinstance(got, int):
        return got
    runs, problems = got
    benches: Benches = load_benches(args.bench)
    budget: BudgetDocument | None = None
    if args.budget:
        try:
            budget = load_budget(args.budget)
        except BadInputError as e:
            problems.append(str(e))
    advice = build_advice(
        trace,
        runs,
        benches,
        budget,
        store_given=args.store is not None,
        replayed=args.store is not None and args.replay,
        ring_bytes=ring,
        op=args.direction,
        small=args.small,
    )
    return advice, problems + list(advice.problems), runs


def traced_advice(args: argparse.Namespace) -> tuple[TraceFile, Advice, list[str], list[StoredRun]] | int:
    """`advise` and `trace` alike: the trace of args.trace read (exit 2 when it cannot be), then
    the advice on it (evidence_advice), or the exit code that ended it."""
    try:
        tf = load_trace(args.trace)
    except BadInputError as e:
        err(f"error: {e}")
        return EXIT_BAD_INPUT
    got = evidence_advice(args, tf)
    return got if isinstance(got, int) else (tf, *got)


def run_advise(args: argparse.Namespace, out) -> int:
    """`out`: cli.py's writer of standard output (streams.out)."""
    from pinreport.advice.json_doc import format_advice_json
    from pinreport.advice.text import format_advice

    got = traced_advice(args)
    if isinstance(got, int):
        return got
    _, advice, problems, _ = got
    out(format_advice_json(advice) if args.json else format_advice(advice))
    for p in problems:
        err(f"error: {p}")
    return with_bad_input(advice.exit_code, bool(problems))
