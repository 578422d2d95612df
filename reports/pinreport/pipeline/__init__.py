"""The report pipeline: one Report per command (report.py) and the answer of its first screen
(answer.py)."""
