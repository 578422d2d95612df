"""pinreport: the analysis side of pinbench.

Loading (load.py, store.py), maths (samples.py, stats.py, rule.py, fit.py, expect.py), the
comparison that ties them together (compare.py) and one formatter per output format
(console.py, junit.py) are separate modules; cli.py is a thin layer over them.
"""

__version__ = "0.1.0"
