"""The top of the page: the overall verdict and what the platform lets the page say."""

from pinreport.pipeline.values import CompareReport, ResultsFile

PASS, REGRESSION, RULE_VIOLATION, INFRASTRUCTURE = "PASS", "REGRESSION", "RULE VIOLATION", "INFRASTRUCTURE FAILURE"
DISTURBED = "DISTURBED"  # another process moved device memory: no verdict on those runs
BAD_INPUT = "BAD INPUT"  # a file named as unreadable (the store, a night, a --bench file): exit 2


def overall_verdict(report: CompareReport, bad_input: bool = False) -> tuple[str, list[str]]:
    """The banner: the most severe outcome first (an infrastructure failure makes the rest
    suspect), and every other outcome that applies beside it. PASS only when nothing else
    applies: a page of an error exit (a bad input among them) never says PASS."""
    found = []
    if report.infrastructure:
        found.append(INFRASTRUCTURE)
    if bad_input:
        found.append(BAD_INPUT)
    if report.disturbed:
        found.append(DISTURBED)
    if report.violations:
        found.append(RULE_VIOLATION)
    if report.regressions:
        found.append(REGRESSION)
    return (found[0], found[1:]) if found else (PASS, [])


def platform_note(current: ResultsFile) -> str:
    models = set(current.environment.driver_models)
    release = current.environment.release or "unknown"
    if current.replayed:
        source = current.replay_source or "a real results file"
        return (
            f"REPLAYED from {source}: the driver release {release} and driver model "
            f"{', '.join(sorted(models)) or 'unknown'} are labels a replay script may have set, not a "
            "measurement of that driver. Every verdict and claim below only exercises the pipeline."
        )
    if models == {"linux"}:
        return (
            f"Linux driver {release}: our Linux control, NOT Windows. Nothing on this page says what a "
            "Windows WDDM, TCC or MCDM driver does; the brief's Windows claims are NOT TESTED HERE."
        )
    return f"Driver model {', '.join(sorted(models)) or 'unknown'}, driver release {release}."
