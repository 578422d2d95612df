"""JUnit XML of a compare report: one test case per scenario and metric, plus the reservation
rule per scenario and probe key, each scenario claim, and the infrastructure and input checks.

A case fails for REGRESSION, VIOLATION and a REFUTED claim, is skipped when it had no baseline
at all or was NOT JUDGED (a disturbed probe), and errors for an infrastructure problem, a run
disturbed by another process ("disturbed": never a failure, since no verdict was given) or bad
input. (The exit code does not count REFUTED claims: they are hypotheses under test, not
requirements.)
"""

import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from pinreport.base.atomic_write import write_file
from pinreport.base.text import terminal_safe
from pinreport.pipeline.values import ClaimVerdict, CompareReport, RuleVerdict, Verdict


def _case(suite: ET.Element, classname: str, name: str, lines: list[str]) -> ET.Element:
    case = ET.SubElement(suite, "testcase", classname=classname, name=name, time="0")
    if lines:
        ET.SubElement(case, "system-out").text = "\n".join(lines)
    return case


def build_junit(report: CompareReport) -> ET.ElementTree:
    prefix = "REPLAYED " if report.replayed else ""
    root = ET.Element("testsuites")
    suite = ET.SubElement(
        root, "testsuite", name=f"{prefix}pinreport compare {report.key.describe_group()} {report.key.release}"
    )
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="current", value=report.current_path)
    ET.SubElement(props, "property", name="replayed", value=str(report.replayed).lower())

    by_metric = defaultdict(list)
    for v in report.verdicts:
        by_metric[(v.scenario, v.metric)].append(v)
    for (scenario, metric), vs in sorted(by_metric.items()):
        lines = [f"{prefix}{v.run_id} vs {v.kind}: {v.verdict} - {v.comparison.reason}" for v in vs]
        case = _case(suite, scenario, metric, lines)
        bad = [v for v in vs if v.verdict == Verdict.REGRESSION]
        if bad:
            ET.SubElement(
                case,
                "failure",
                type="REGRESSION",
                message=f"{prefix}{len(bad)} regression(s): " + "; ".join(f"{v.run_id} vs {v.kind}" for v in bad),
            )
        elif all(v.verdict == Verdict.NO_BASELINE for v in vs):
            ET.SubElement(case, "skipped", message="NO-BASELINE")
        elif all(v.verdict == Verdict.NOT_JUDGED for v in vs):
            ET.SubElement(case, "skipped", message=f"{prefix}NOT JUDGED: {vs[0].comparison.reason}")

    by_key = defaultdict(list)
    for r in report.rule:
        if r.judged:
            by_key[(r.scenario, r.key)].append(r)
    for (scenario, key), rs in sorted(by_key.items()):
        lines = [f"{prefix}{r.run_id}: ratio {r.ratio:.4f} {r.verdict} ({r.reason})" for r in rs]
        case = _case(suite, scenario, f"reservation-rule {key}", lines)
        bad = [r for r in rs if r.verdict == RuleVerdict.VIOLATION]
        if bad:
            ET.SubElement(
                case,
                "failure",
                type="VIOLATION",
                message=f"{prefix}ratio above {float(report.options.band.upper):g}: "
                + "; ".join(f"{r.run_id} {r.ratio:.4f}" for r in bad),
            )

    for c in report.claims:
        case = _case(
            suite,
            c.scenario,
            f"expect {c.driver_model} {c.limit}={c.shown_value}",
            [f"{prefix}{c.verdict}: {c.reason}"],
        )
        if c.verdict == ClaimVerdict.REFUTED:
            ET.SubElement(case, "failure", type="REFUTED", message=f"{prefix}{c.reason}")
        elif c.verdict == ClaimVerdict.NOT_TESTED:
            ET.SubElement(case, "skipped", message=c.reason)

    for name, problems in (
        ("infrastructure", report.infrastructure),
        ("disturbed", [d.describe() for d in report.disturbed]),
        ("input", [str(e) for e in report.bad_input]),
    ):
        case = _case(suite, "pinreport", name, problems)
        if problems:
            ET.SubElement(case, "error", type=name, message=problems[0])

    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    for tag, attr in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
        suite.set(attr, str(sum(1 for c in cases if c.find(tag) is not None)))
    _xml_safe(root)
    ET.indent(root)
    return ET.ElementTree(root)


def _xml_safe(root: ET.Element) -> None:
    """Text from a file may hold characters XML 1.0 cannot carry (ESC, NUL, ...): ElementTree
    writes them as they are, and the file is then not XML (a CI's JUnit reader refuses it).
    They are shown as their escapes (text.terminal_safe), line breaks and tabs kept."""
    for e in root.iter():
        if e.text:
            e.text = terminal_safe(e.text, keep="\n\t")
        if e.tail:
            e.tail = terminal_safe(e.tail, keep="\n\t")
        for k, v in e.attrib.items():
            e.set(k, terminal_safe(v))


def write_junit(report: CompareReport, path: str | Path) -> None:
    """Through the one atomic writer: OutputRefusedError (exit 2) or WriteFailedError (exit 3)."""
    write_file(path, ET.tostring(build_junit(report).getroot(), encoding="utf-8", xml_declaration=True))
