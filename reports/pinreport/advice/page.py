"""The Advice as values for the trace page's section (templates/advice_section.html.j2, included
by trace.html.j2): strings the template only displays."""

from typing import TypedDict

from pinreport.advice.build import Advice, ScopeAdvice
from pinreport.advice.text import cost_line, option_lines


class ScopeSection(TypedDict):
    title: str
    cost: str
    verdict: str
    kind: str
    threshold: str
    options: list[list[str]]


class AdviceSection(TypedDict):
    replayed: bool
    notes: list[str]
    missing: list[str]
    budget: str
    scopes: list[ScopeSection]


def _scope(s: ScopeAdvice, gpus: int, title: str) -> ScopeSection:
    return {
        "title": title,
        "cost": cost_line(s, gpus),
        "verdict": s.verdict.words,
        "kind": s.verdict.kind.replace(" ", "_"),
        "threshold": s.verdict.threshold,
        "options": [[line.strip() for line in option_lines(o)] for o in s.options],
    }


def advice_context(a: Advice) -> AdviceSection:
    scopes = [_scope(a.program, a.gpus, "The program")]
    if len(a.sites) > 1:
        scopes += [_scope(s, a.gpus, f"Call site {s.cost.scope}") for s in a.sites]
    return {
        "replayed": a.replayed,
        "notes": list(a.notes),
        "missing": [m.words() for m in a.missing],
        "budget": a.budget.words() if a.budget else "",
        "scopes": scopes,
    }
