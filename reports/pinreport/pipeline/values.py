"""The values the pipeline's reports hold, named where the outputs read them: each is defined by
the stage that computes it (readers/, analysis/, claims/, advice/), and gathered here so that
render/ and formats/ import the pipeline and base/ alone (docs/architecture.md, "The layers")."""

from pinreport.advice.build import Advice
from pinreport.advice.page import AdviceSection
from pinreport.analysis.budget_compare import REGRESSION as BUDGET_REGRESSION
from pinreport.analysis.budget_compare import BudgetVerdict
from pinreport.analysis.compare import HISTORY, PREVIOUS, Baseline, CompareOptions, CompareReport, MetricVerdict
from pinreport.analysis.disturbance import Disturbance
from pinreport.analysis.expect import ClaimVerdict
from pinreport.analysis.false_alarms import TIME_SHIFT_SPREADS, NightResult
from pinreport.analysis.fit import Recommendation
from pinreport.analysis.rule import CONTROL_API, Band, RuleResult, RuleVerdict
from pinreport.analysis.stats import NIGHT_SPREAD_FACTOR, TOO_FEW_NIGHTS, Comparison, Verdict
from pinreport.analysis.trace import TraceJudgement, TraceVerdict
from pinreport.claims.claim import ClaimRow
from pinreport.readers.bench_rows import BenchRows
from pinreport.readers.budget import BudgetDocument
from pinreport.readers.environment import FieldValue
from pinreport.readers.results import Controls, ResultsFile
from pinreport.readers.runs import Run
from pinreport.readers.store_key import StoreKey
from pinreport.readers.trace import ApiCalls, TraceFile

__all__ = [
    "BUDGET_REGRESSION",
    "CONTROL_API",
    "HISTORY",
    "NIGHT_SPREAD_FACTOR",
    "PREVIOUS",
    "TIME_SHIFT_SPREADS",
    "TOO_FEW_NIGHTS",
    "Advice",
    "AdviceSection",
    "ApiCalls",
    "Band",
    "Baseline",
    "BenchRows",
    "BudgetDocument",
    "BudgetVerdict",
    "ClaimRow",
    "ClaimVerdict",
    "CompareOptions",
    "CompareReport",
    "Comparison",
    "Controls",
    "Disturbance",
    "FieldValue",
    "MetricVerdict",
    "NightResult",
    "Recommendation",
    "ResultsFile",
    "RuleResult",
    "RuleVerdict",
    "Run",
    "StoreKey",
    "TraceFile",
    "TraceJudgement",
    "TraceVerdict",
    "Verdict",
]
