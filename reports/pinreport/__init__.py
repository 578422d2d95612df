"""pinreport: the analysis side of pinbench.

The typed readers of every input (readers/: results files, traces, budgets, Google Benchmark
JSON; store/: the baseline store), the analysis (analysis/: statistics, the comparison, the
reservation rule, fits, history, traces), the claims (claims/), the report pipeline (pipeline/:
each command's report computed once, eagerly) and one formatter per output format, each only
reading the pipeline's values (formats/: text, Markdown, JUnit; render/: the HTML report and the
trace page), over base/ (what every stage reads), are separate stages
(docs/architecture.md, "The layers" and "The report pipeline"); cli.py is a thin layer over them.
"""

__version__ = "0.1.0"
