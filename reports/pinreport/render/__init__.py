"""Rendering the HTML report: context.py builds everything the page shows as plain values (the
tables in their own modules, each chart family in charts/), page.py fills
templates/report.html.j2, which only displays."""
