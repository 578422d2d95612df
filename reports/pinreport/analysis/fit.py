"""Least-squares cost model, cost = base + slope x pinned bytes, and the reserve it implies.

One fit per (store group, driver release, api, gpus, probe family), over every ok repeat of
every rule-kind run (size and count sweeps alike: x = size_bytes x count). Per-device keys are
pooled as one family ("nvml.*.used"): each device contributes its own points.

The prediction bound at x0 is the upper limit of the two-sided `confidence` prediction
interval for one new observation:
    yhat(x0) + t(n-2) * s * sqrt(1 + 1/n + (x0 - mean x)^2 / Sxx)
and never less than yhat(x0) + one granule (readings cannot resolve finer). When every sample
is within one granule of zero (|y| <= granule) the fit is "below resolution": the cost cannot be
told from zero, and the bound is one granule.
"""

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from pinreport.analysis.rule import CONTROL_API, RULE_KINDS, held_costs, is_judged_key, is_shared_key
from pinreport.readers.runs import Run
from pinreport.readers.store_key import StoreKey

DEFAULT_CONFIDENCE = 0.95
_DEVICE_INDEX = re.compile(r"^nvml\.[0-9]+\.")


def probe_family(key: str) -> str:
    """ "nvml.3.used" -> "nvml.*.used"; keys without a device index are their own family."""
    return _DEVICE_INDEX.sub("nvml.*.", key)


@dataclass(frozen=True)
class CostFit:
    n: int
    granule: int | None
    x_min: float
    x_max: float
    below_resolution: bool
    base: float | None = None
    slope: float | None = None
    residual_sd: float | None = None
    x_mean: float | None = None
    sxx: float | None = None
    confidence: float = DEFAULT_CONFIDENCE
    problem: str = ""  # why no fit could be made; "" when there is one

    @property
    def usable(self) -> bool:
        return not self.problem

    def predict(self, x: float) -> float:
        if self.below_resolution:
            return 0.0
        return self.base + self.slope * x

    def upper_bound(self, x: float) -> float:
        g = float(self.granule or 0)
        if self.below_resolution:
            return g
        from scipy import stats as scipy_stats  # stats.load_libraries()

        dof = self.n - 2
        t = float(scipy_stats.t.ppf(0.5 + self.confidence / 2, dof))
        half = t * self.residual_sd * math.sqrt(1 + 1 / self.n + (x - self.x_mean) ** 2 / self.sxx)
        return self.predict(x) + max(half, g)

    def extrapolates(self, x: float) -> bool:
        return x < self.x_min or x > self.x_max


def fit_cost(
    xs: Sequence[float], ys: Sequence[float], granule: int | None, confidence: float = DEFAULT_CONFIDENCE
) -> CostFit:
    """Pure: the fit of one group's points (module docstring)."""
    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    n = len(x)
    common = dict(
        n=n,
        granule=granule,
        confidence=confidence,
        x_min=float(x.min()) if n else 0.0,
        x_max=float(x.max()) if n else 0.0,
    )
    if n == 0:
        return CostFit(below_resolution=False, problem="no samples", **common)
    if granule is not None and bool(np.all(np.abs(y) <= granule)):
        return CostFit(below_resolution=True, **common)
    if n < 3 or len(set(x.tolist())) < 2:
        return CostFit(
            below_resolution=False,
            problem=f"needs 3 samples at 2 sizes at least (have {n} at {len(set(x.tolist()))})",
            **common,
        )
    x_mean = float(x.mean())
    sxx = float(((x - x_mean) ** 2).sum())
    slope = float(((x - x_mean) * (y - y.mean())).sum() / sxx)
    base = float(y.mean() - slope * x_mean)
    residuals = y - (base + slope * x)
    sd = float(math.sqrt((residuals**2).sum() / (n - 2)))
    return CostFit(below_resolution=False, base=base, slope=slope, residual_sd=sd, x_mean=x_mean, sxx=sxx, **common)


@dataclass(frozen=True)
class FitKey:
    group: tuple[str, str, str, str]  # StoreKey.group
    release: str
    api: str
    gpus: int
    family: str


@dataclass
class _Points:
    xs: list[float] = field(default_factory=list)
    ys: list[float] = field(default_factory=list)
    granules: set[int | None] = field(default_factory=set)


def collect_points(files: Iterable[tuple[StoreKey, Iterable[Run]]]) -> dict[FitKey, _Points]:
    """Points (pinned bytes, held cost of one repeat) per fit group, from the runs of results
    files, each with its store key."""
    points: dict[FitKey, _Points] = defaultdict(_Points)
    for key, runs in files:
        for run in runs:
            plan = run.plan
            if run.status != "ok" or plan.kind not in RULE_KINDS or plan.pinned is None:
                continue
            x = float(plan.pinned)
            for probe, cost in held_costs(run).items():
                if not (is_judged_key(probe) or is_shared_key(probe)):
                    continue
                samples = run.metrics[f"{cost.stage}.{probe}"].samples
                if not samples:
                    continue
                p = points[FitKey(key.group, key.release, plan.api or "", plan.gpu_count, probe_family(probe))]
                p.xs.extend([x] * len(samples))
                p.ys.extend(samples)
                p.granules.add(cost.granule)
    return points


def fit_all(
    files: Iterable[tuple[StoreKey, Iterable[Run]]], confidence: float = DEFAULT_CONFIDENCE
) -> dict[FitKey, CostFit]:
    """The cost fit of every group of runs (FitKey) among the files' runs (store key, runs)."""
    out = {}
    for k, p in collect_points(files).items():
        known = [g for g in p.granules if g is not None]
        granule = max(known) if known and None not in p.granules else None
        out[k] = fit_cost(p.xs, p.ys, granule, confidence)
    return out


@dataclass(frozen=True)
class Recommendation:
    group: tuple[str, str, str, str]
    release: str
    api: str
    family: str  # the dedicated probe family that asks for the most
    per_gpu: float  # bytes to reserve on each GPU
    total: float  # over all GPUs
    fit: CostFit
    fit_gpus: int
    notes: tuple[str, ...]


def recommend(
    fits: dict[FitKey, CostFit], size: int, gpus: int, release_of_group: dict[tuple, str]
) -> list[Recommendation]:
    """Per group and pinned api: the largest prediction bound at `size` over the dedicated
    probe families, per GPU and times `gpus`. Fits from runs on `gpus` GPUs are preferred; else
    1-GPU fits are used, assuming each GPU pays what one GPU pays (the field report's claim,
    stated in the notes)."""
    out = []
    for group, release in sorted(release_of_group.items()):
        keys = [
            k
            for k in fits
            if k.group == group
            and k.release == release
            and k.api != CONTROL_API
            and fits[k].usable
            and is_judged_key(k.family.replace(".*.", ".0."))
        ]
        for api in sorted({k.api for k in keys}):
            chosen = [k for k in keys if k.api == api and k.gpus == gpus]
            notes = []
            if not chosen:
                chosen = [k for k in keys if k.api == api and k.gpus == 1]
                if not chosen:
                    continue
                if gpus != 1:
                    notes.append(f"from 1-GPU runs: assumes each of the {gpus} GPUs pays the same")
            best = max(chosen, key=lambda k: fits[k].upper_bound(size))
            fit = fits[best]
            if fit.below_resolution:
                notes.append("below resolution: every sample within one granule of zero")
            elif fit.extrapolates(size):
                notes.append("extrapolated beyond the measured sizes")
            per_gpu = max(fit.upper_bound(size), 0.0)
            out.append(
                Recommendation(group, release, api, best.family, per_gpu, per_gpu * gpus, fit, best.gpus, tuple(notes))
            )
    return out
