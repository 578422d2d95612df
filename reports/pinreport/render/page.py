"""The page: templates/report.html.j2 (Jinja2, autoescaped) filled with context.py's values.
The page is self-contained: inline CSS and SVG, no script, no external resource."""

import jinja2

from pinreport.base.atomic_write import write_text
from pinreport.render.context import PageContext


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("pinreport", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def render_html(context: PageContext) -> str:
    return _environment().get_template("report.html.j2").render(**context)


def write_html(context: PageContext, path: str) -> None:
    """Through the one atomic writer: OutputRefusedError (exit 2) or WriteFailedError (exit 3)."""
    write_text(path, render_html(context))
