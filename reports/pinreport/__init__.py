"""pinreport: the analysis side of pinbench.

Loading (result/: load.py, gbench.py for Google Benchmark JSON; store/: the baseline store), the analysis (analysis/:
statistics, the comparison, the reservation rule, fits, history, traces), the claims
(claims/), the report pipeline (pipeline.py: one Report per results file, each analysis run
once) and one formatter per output format, each only reading the Report (formats/: text,
Markdown, JUnit; render/: the HTML report and the trace page) are separate stages
(docs/architecture.md, "The layers" and "The report pipeline"); cli.py is a thin layer over them.
"""

__version__ = "0.1.0"
