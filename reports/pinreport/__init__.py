"""pinreport: the analysis side of pinbench.

Loading (load.py, store.py, gbench.py for Google Benchmark JSON), the analysis (analysis/:
statistics, the comparison, the reservation rule, fits, history, traces), the claims
(claims/), and one formatter per output format (formats/: text, Markdown, JUnit; render/: the
HTML report and the trace page) are separate stages (docs/architecture.md, "The layers");
cli.py is a thin layer over them.
"""

__version__ = "0.1.0"
