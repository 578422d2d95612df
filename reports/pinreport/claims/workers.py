"""Claim 11 (workers, per_process): the per-worker context and pinned costs both beyond one
granule and flat in N (spread within max(granule, LINEAR_TOLERANCE of the largest)): CONFIRMED;
a part within one granule of 0, or not flat: REFUTED; a part not measured: NOT TESTED HERE."""

from pinreport.analysis import kind_results
from pinreport.base.units import format_bytes
from pinreport.claims.claim import CONFIRMED, NOT_TESTED, REFUTED, Claim, Finding
from pinreport.claims.evidence import ClaimData
from pinreport.readers.runs import Run

LINEAR_TOLERANCE = 0.10  # per-worker costs this close (relative) count as flat in N


class Workers(Claim):
    n = "11"
    title = "Workers: each process pays its own pinned cost and CUDA context, linear in workers."

    def gather(self, data: ClaimData) -> tuple[ClaimData, list[Run], str | None, str]:
        """(the data, its ok per_process runs with N > 0, the dedicated key they are judged on,
        the context part: an older file's context is read with the workspace,
        kind_results.worker_context_part)."""
        runs = [
            r
            for r in data.ok_runs("workers")
            if r.plan.params.get("variant", "per_process") == "per_process"
            and (r.plan.params.integer("workers") or 0) > 0
        ]
        part, key = kind_results.worker_context_part(runs)
        return data, runs, key, part

    def applies(self, seen: tuple[ClaimData, list[Run], str | None, str]) -> str | None:
        return None if seen[2] is not None else "no ok per_process workers run with N > 0"

    def judge(self, seen: tuple[ClaimData, list[Run], str | None, str]) -> Finding:
        data, runs, key, context = seen
        texts, problems = [], []
        for part in (context, "pinned"):
            metric = f"workers.{part}_per_worker.{key}"
            points = [
                (
                    r.plan.params.integer("workers") or 0,
                    kind_results.median_of(r, metric),
                    kind_results.granule_of(data.current, r, metric, key),
                )
                for r in runs
            ]
            points = sorted((n, v, g) for n, v, g in points if v is not None)
            label = part.replace("_", " ")
            if not points:
                problems.append(f"{label} per worker not measured")
                continue
            values = [v for _, v, _ in points]
            g = max(g for _, _, g in points)
            texts.append(f"{label} per worker " + ", ".join(f"N={n}: {format_bytes(v)}" for n, v, _ in points))
            if max(abs(v) for v in values) <= g:
                problems.append(f"{label} per worker within one granule of 0")
            elif max(values) - min(values) > max(g, LINEAR_TOLERANCE * max(abs(v) for v in values)):
                problems.append(f"{label} per worker changes with N (not linear)")
        evidence = f"on {key}: " + "; ".join(texts)
        if any("not measured" in p for p in problems):
            return NOT_TESTED, f"{evidence}; " + "; ".join(problems)
        if problems:
            return REFUTED, f"{'; '.join(problems)}: {evidence}"
        return CONFIRMED, f"both per-worker costs flat in N: {evidence}"
