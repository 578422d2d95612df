"""Property tests (Hypothesis) over pinreport's readers and the CLI's exit codes: whatever a
results file, a trace or a store entry holds, a reader gives a value or a named refusal
(BadInputError, exit 2), the analysis and every formatter take what was read, and the CLI ends
with a documented exit code (0 to 3), never 4 (a bug) and never a traceback.

Bounded for CI by the `ci` profile (conftest.py); PINREPORT_FUZZ=nightly runs far more examples.
What these found while being written is listed in results/ci-checks/README.md ("Fuzzing
pinreport") and docs/fuzzing.md ("pinreport's property tests")."""

import functools
import gzip
import json
import os
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from builders import add_to_store, document, make_store, results_doc, run_doc  # noqa: E402
from conftest import REPO_ROOT, upgraded  # noqa: E402
from fuzz_values import mutated  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pinreport.base.errors import BadInputError  # noqa: E402
from pinreport.cli import main  # noqa: E402
from pinreport.formats.console import format_compare, format_summary, format_trace  # noqa: E402
from pinreport.formats.markdown import format_summary_markdown  # noqa: E402
from pinreport.pipeline.commands import trace_report  # noqa: E402
from pinreport.pipeline.report import run_pipeline  # noqa: E402
from pinreport.readers.results import results_from_bytes  # noqa: E402
from pinreport.readers.trace import load_trace  # noqa: E402
from pinreport.render.context import page_context  # noqa: E402
from pinreport.render.page import render_html  # noqa: E402
from pinreport.render.trace_page import write_trace_html  # noqa: E402
from pinreport.store.reading import StoreContents, read_store  # noqa: E402
from schema_strategies import trace_documents  # noqa: E402

BASE = json.loads((REPO_ROOT / "harness/tests/fixtures/results-validity/accept_base.json").read_text())
MiB = 2**20
DOCUMENTED = {0, 1, 2, 3}
TRACE = json.loads((REPO_ROOT / "results/h200-trace/trace-dataloader-w4.json").read_text())
_SETTINGS = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _small_doc():
    runs = [
        run_doc(size=64 * MiB, nonce="a"),
        run_doc(size=1024 * MiB, costs={"cuda.free": [3 * MiB] * 7}, nonce="b"),
    ]
    return results_doc(runs, started_at="2025-06-02T10:00:00Z")


SMALL = _small_doc()


def _analyse(path: str, doc: dict) -> None:
    """Everything the commands do with a read document: no exception may escape."""
    from pinreport.readers.results import ResultsFile

    report = run_pipeline(ResultsFile(path, doc), StoreContents(root=""), stored=False)
    format_compare(report.compared)
    format_summary(report.answer)
    format_summary_markdown(report.answer)
    render_html(page_context(report))


@_SETTINGS
@given(doc=st.one_of(mutated(BASE), mutated(SMALL)))
def test_a_mutated_results_file_is_read_or_refused_and_then_analysed(doc):
    data = json.dumps(doc).encode()
    try:
        read = results_from_bytes(data, "fuzz.json")
    except BadInputError as e:
        assert str(e).startswith("fuzz.json: ")
        return
    _analyse("fuzz.json", document(read))


@_SETTINGS
@given(data=st.binary(max_size=512) | st.sampled_from([b"{", b"[]", b"null", b'{"schema": "pinbench.results"}']))
def test_any_bytes_are_read_or_refused(data):
    try:
        results_from_bytes(data, "bytes.json")
    except BadInputError as e:
        assert str(e).startswith("bytes.json: ")


@_SETTINGS
@given(doc=st.one_of(mutated(BASE), mutated(SMALL)))
def test_the_cli_ends_with_a_documented_code(doc):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "r.json")
        path.write_text(json.dumps(doc))
        for argv in (["summary", str(path)], ["aa", str(path), str(path)]):
            code = main(argv)
            assert code in DOCUMENTED, (argv, code)


@_SETTINGS
@given(entry=st.one_of(mutated(SMALL).map(lambda d: json.dumps(d).encode()), st.binary(max_size=256)))
def test_a_bad_store_entry_is_named_and_the_rest_is_read(entry):
    with tempfile.TemporaryDirectory() as tmp:
        root = make_store(Path(tmp, "store"))
        good = add_to_store(root, results_doc([run_doc()], started_at="2025-05-01T10:00:00Z"))
        # The fuzzed entry where the good one's key puts entries, stored as the harness stores them.
        bad = good.with_name("20250502T100000Z-0123456789ab.json.gz")
        bad.write_bytes(gzip.compress(entry))
        contents = read_store(root)
        named = {str(p).split(": ")[0] for p in contents.problems}
        assert str(bad) in named or any(str(e.path) == str(bad) for e in contents.entries)
        assert any(str(e.path) == str(good) for e in contents.entries)
        current = Path(tmp, "c.json")
        current.write_text(json.dumps(SMALL))
        code = main(["compare", "--store", str(root), "--current", str(current)])
        assert code in DOCUMENTED


def _store_docs():
    from pinreport.readers.results import load_results as load

    files = [REPO_ROOT / "results/h200-nightly-free-vram/results.json", REPO_ROOT / "results/h200-apis/results.json"]
    return [load(upgraded(f)) for f in files]


@functools.cache
def _cached_store_docs():
    return _store_docs()


@pytest.fixture(scope="module")
def store_docs():
    """A function, not the documents: Hypothesis prints its arguments with a failing example."""
    if not os.path.exists(os.environ.get("PINBENCH_EXE", "")):
        pytest.skip("needs a built pinbench (PINBENCH_EXE): the store's files are of schema 3")
    return _cached_store_docs


@_SETTINGS
@given(doc=trace_documents(), real_environment=st.booleans())
def test_a_schema_valid_trace_is_judged_and_shown(tmp_path_factory, store_docs, doc, real_environment):
    """Any document the trace schema admits: judged against a store that has a fit for it (the
    real trace's environment) or none, printed and drawn, without an exception."""
    if real_environment:
        doc["environment"] = TRACE["environment"]
        doc["pinned"].setdefault("peak_by_family", TRACE["pinned"]["peak_by_family"])
    folder = tmp_path_factory.mktemp("trace")
    path = folder / "t.json"
    path.write_text(json.dumps(doc))
    try:
        t = load_trace(path)
    except BadInputError as e:
        raise AssertionError(f"the schema admits it, the reader refused it: {e}") from None
    report = trace_report(t, store_docs())
    format_trace(report)
    write_trace_html(report, folder / "t.html")


@_SETTINGS
@given(doc=mutated(TRACE, most=4))
def test_a_mutated_trace_is_read_or_refused_and_then_judged(tmp_path_factory, store_docs, doc):
    folder = tmp_path_factory.mktemp("trace")
    path = folder / "t.json"
    path.write_text(json.dumps(doc))
    try:
        t = load_trace(path)
    except BadInputError:
        return
    report = trace_report(t, store_docs())
    format_trace(report)
    write_trace_html(report, folder / "t.html")


def test_the_profiles_are_bounded():
    """CI runs a bounded number of examples without a deadline (a slow machine is no failure)."""
    current = settings()
    if os.environ.get("PINREPORT_FUZZ", "ci") == "ci":
        assert current.max_examples <= 100
    assert current.deadline is None
