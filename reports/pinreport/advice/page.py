"""The Advice as values for the trace page's section (templates/advice_section.html.j2, included
by trace.html.j2): strings the template only displays."""

from typing import Any

from pinreport.advice.build import Advice, ScopeAdvice
from pinreport.advice.text import cost_line, option_lines


def _scope(s: ScopeAdvice, gpus: int, title: str) -> dict[str, Any]:
    return {
        "title": title,
        "cost": cost_line(s, gpus),
        "verdict": s.verdict.words,
        "kind": s.verdict.kind.replace(" ", "_"),
        "threshold": s.verdict.threshold,
        "options": [[line.strip() for line in option_lines(o)] for o in s.options],
    }


def advice_context(a: Advice) -> dict[str, Any]:
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
