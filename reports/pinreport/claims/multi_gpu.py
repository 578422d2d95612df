"""Claim 3 (multi_gpu): a pinned buffer used by N GPUs is paid for on every GPU. Every one of
the N devices pays (cost.after_first_use.nvml.<d>.used beyond one granule): CONFIRMED; some
device pays and another does not: REFUTED; none pays: NOT TESTED HERE."""

from pinreport.analysis import kind_results
from pinreport.base.units import format_bytes
from pinreport.claims.claim import CONFIRMED, NOT_TESTED, REFUTED, Claim, Finding
from pinreport.claims.evidence import ClaimData
from pinreport.readers.runs import Run


class MultiGpu(Claim):
    n = "3"
    title = "Multi-GPU: a pinned buffer used by N GPUs is mapped, and paid for, on every GPU."

    def gather(self, data: ClaimData) -> tuple[ClaimData, list[Run]]:
        """(the data, its ok multi_gpu runs on more than one GPU)."""
        return data, [r for r in data.ok_runs("multi_gpu") if r.plan.gpu_count > 1]

    def applies(self, seen: tuple[ClaimData, list[Run]]) -> str | None:
        return None if seen[1] else "no ok multi_gpu run on more than one GPU"

    def judge(self, seen: tuple[ClaimData, list[Run]]) -> Finding:
        data, runs = seen
        paying, missing, checked = [], [], 0
        for run in runs:
            n = run.plan.gpu_count
            costs = []
            for d in range(n):
                metric = f"cost.after_first_use.nvml.{d}.used"
                value = kind_results.median_of(run, metric)
                if value is None:
                    break
                costs.append((d, value, kind_results.granule_of(data.current, run, metric, f"nvml.{d}.used")))
            if len(costs) != n:
                continue
            checked += 1
            pays = [d for d, v, g in costs if v > g]
            total = kind_results.median_of(run, "multi_gpu.cost_sum.nvml.used")
            total_text = f", sum {format_bytes(total)}" if total is not None else ""
            text = f"{run.id}: " + ", ".join(f"GPU {d} {format_bytes(v)}" for d, v, _ in costs) + total_text
            if pays and len(pays) < n:
                missing.append(text)
            elif pays:
                paying.append(text)
        if not checked:
            return NOT_TESTED, f"{len(runs)} multi_gpu run(s) without a per-device NVML cost on every device"
        if missing:
            return REFUTED, f"not every GPU pays: {missing[0]}"
        if paying:
            return CONFIRMED, f"every GPU pays in {len(paying)} of {checked} run(s), e.g. {paying[0]}"
        return NOT_TESTED, f"no GPU pays beyond one granule in {checked} multi_gpu run(s): nothing to multiply"
