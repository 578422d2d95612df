"""The claims the report judges: the brief's 14 (the project brief's "Experiments", numbered as
there; docs/findings.md states each) and those beyond it (the largest pinnable size against free
VRAM), each an object that gathers what it reads from
the data at hand once, says whether it applies here, and judges (claim.py). One file per claim
family; register.py lists them in the report's order. The exact rules are in each family's
docstring; nothing is hard-coded as expected.

Each claim gets CONFIRMED, REFUTED or NOT TESTED HERE for the platform of the current results
file, with the evidence in one sentence. Only what the data supports is judged: Windows-only
claims are NOT TESTED HERE on other data (their evidence still names the numbers), and a claim
whose scenario kind has no ok run here is NOT TESTED HERE. Claims on the scenario kinds
(docs/kinds.md) are judged on the dedicated key the report charts (cudaMemGetInfo first), with
one granule (the metric's, else the null control's) of tolerance.
"""
