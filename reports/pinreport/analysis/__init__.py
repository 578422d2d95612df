"""Analysis: what the results say. Pure statistics (stats.py), the verdicts against the
previous release and the release's history (compare.py, history.py), the reservation rule
(rule.py) and its fit (fit.py), a scenario's own expectations (expect.py), disturbed probes
(disturbance.py), each kind's headline values (kind_results.py), the max-pinnable fit
(pinnable_fit.py), the A/A check of the verdict rules (false_alarms.py) and a traced program's
pinned timeline (trace.py). Reads results and the store; never formats."""
