"""pinreport: the analysis side of pinbench.

Loading (load.py, store.py, gbench.py for Google Benchmark JSON, trace.py for pinbench
traces), history aggregation (history.py), maths (stats.py, rule.py, fit.py, expect.py), the
comparison that ties them together (compare.py), the claims (claims/), and one formatter per
output format (console.py, junit.py, the HTML report and the trace page in render/) are
separate modules; cli.py is a thin layer over them.
"""

__version__ = "0.1.0"
