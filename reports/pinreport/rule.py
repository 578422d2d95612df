"""The reservation rule lives in analysis/rule.py. This name stays only for store_index.py, which
other work is changing now; it goes when store_index.py moves (docs/architecture.md, "Waiting
for other work")."""

from pinreport.analysis.rule import HELD_STAGES, RULE_KINDS

__all__ = ["HELD_STAGES", "RULE_KINDS"]
