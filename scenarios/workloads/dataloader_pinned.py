"""A PyTorch workload for `pinbench trace` and the `command` kind (docs/trace.md): a real
torch.utils.data.DataLoader with pin_memory=True, whose training loop keeps the last few
batches alive (as a prefetch-to-GPU queue does), so the caching host allocator holds several
pinned blocks at once. Each batch is --batch-mib MiB; the allocator rounds every pinned
request up to a power of two, which the trace shows against the batch bytes noted here.

    python3 dataloader_pinned.py [--num-workers N] [--batch-mib M] [--batches K] [--keep H]

Exits 0 with a note {"skipped": reason} when torch or a GPU is missing.
"""

import argparse
import json
import os
import sys
import time


def note(record: dict) -> None:
    """One JSON line for pinbench trace ($PINBENCH_TRACE_NOTES), and the same on stdout."""
    line = json.dumps(record, sort_keys=True)
    print(line, flush=True)
    path = os.environ.get("PINBENCH_TRACE_NOTES")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-workers", type=int, default=0)
    parser.add_argument("--batch-mib", type=float, default=300.0)
    parser.add_argument("--batches", type=int, default=12)
    parser.add_argument("--keep", type=int, default=9, help="batches kept alive at once")
    parser.add_argument("--hold-ms", type=int, default=1500, help="how long the last batches stay held")
    args = parser.parse_args()

    try:
        import torch
        from torch.utils.data import DataLoader, Dataset, get_worker_info
    except ImportError as e:
        note({"workload": "dataloader_pinned", "skipped": f"torch is not installed ({e})"})
        return 0
    if not torch.cuda.is_available():
        note({"workload": "dataloader_pinned", "skipped": "torch sees no CUDA device"})
        return 0

    elements = int(args.batch_mib * 1024 * 1024) // 4  # float32

    class Batches(Dataset):
        def __len__(self) -> int:
            return args.batches

        def __getitem__(self, i: int) -> "torch.Tensor":
            return torch.full((elements,), float(i), dtype=torch.float32)

    def worker_started(worker_id: int) -> None:
        info = get_worker_info()
        note({f"worker_pid_{worker_id}": os.getpid(), "num_workers_seen": info.num_workers if info else 0})

    loader = DataLoader(
        Batches(),
        batch_size=None,  # each item is one batch already
        num_workers=args.num_workers,
        pin_memory=True,
        worker_init_fn=worker_started if args.num_workers > 0 else None,
    )
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # the context now, and a moment for the device samples to see it
    time.sleep(0.3)  # settled before the first pin: the trace's baseline (docs/trace.md)
    note(
        {
            "workload": "dataloader_pinned",
            "main_pid": os.getpid(),
            "num_workers": args.num_workers,
            "batch_bytes": elements * 4,
            "batches": args.batches,
            "keep": args.keep,
            "torch": torch.__version__,
        }
    )
    kept = []
    started = time.perf_counter()
    for batch in loader:
        if not batch.is_pinned():
            note({"error": "a batch arrived unpinned"})
            return 1
        kept.append(batch)
        del kept[: -args.keep]
    time.sleep(args.hold_ms / 1000)  # the peak, for the device samples
    note({"loop_s": round(time.perf_counter() - started, 3), "held_at_end": len(kept)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
