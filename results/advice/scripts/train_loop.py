"""A small training loop fed by a DataLoader with pin_memory=True (program (a) of
results/advice/README.md). Batches of 150 MiB (16 images of 3 x 1024 x 800 floats) from two
workers; the loop keeps the last --keep host batches (a replay buffer of recent batches, reused for
hard-example mining) and trains a tiny model on each batch on the GPU. --mode picks how host bytes
reach the GPU (pinning_modes.py): as_is (the DataLoader's pin_memory=True), exact, ring, pageable.
Notes batch_bytes, transfer_bytes and copy_gbps for the trace."""

import argparse
import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402
from pinning_modes import CopyTimer, Ring, exact_pinned_like, note  # noqa: E402

SHAPE = (3, 1024, 800)


class Images(torch.utils.data.Dataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        return torch.full(SHAPE, float(i % 7)), torch.tensor(float(i % 2))


class ExactBatch:
    """A batch whose pin_memory() (called by the DataLoader's pin thread) pins exactly its bytes."""

    def __init__(self, x: torch.Tensor, y: torch.Tensor) -> None:
        self.x, self.y = x, y

    def pin_memory(self, device=None):
        out = ExactBatch(None, self.y)
        out.x = exact_pinned_like(self.x, owner=out)
        return out


def exact_collate(samples):
    x, y = torch.utils.data.default_collate(samples)
    return ExactBatch(x, y)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=("as_is", "exact", "ring", "pageable"), default="as_is")
    p.add_argument("--batch", type=int, default=16, help="images per batch (16: 150 MiB)")
    p.add_argument("--batches", type=int, default=20)
    p.add_argument("--keep", type=int, default=8)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--hold-ms", type=int, default=600)
    a = p.parse_args()
    dev = torch.device("cuda")
    batch_bytes = a.batch * SHAPE[0] * SHAPE[1] * SHAPE[2] * 4
    note(workload="advice_train_loop", mode=a.mode, batch_bytes=batch_bytes, transfer_bytes=batch_bytes)
    loader = torch.utils.data.DataLoader(
        Images(a.batch * a.batches),
        batch_size=a.batch,
        num_workers=a.workers,
        pin_memory=a.mode in ("as_is", "exact"),
        collate_fn=exact_collate if a.mode == "exact" else None,
    )
    model = torch.nn.Linear(SHAPE[0], 1).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    ring = Ring() if a.mode == "ring" else None
    timer = CopyTimer()
    kept = collections.deque(maxlen=a.keep)
    on_gpu = torch.empty((a.batch, *SHAPE), device=dev)
    t0 = time.perf_counter()
    for batch in loader:
        x, y = (batch.x, batch.y) if isinstance(batch, ExactBatch) else batch
        if ring is not None:
            timer.run(batch_bytes, lambda x=x: ring.copy(on_gpu, x))
        elif a.mode == "pageable":
            timer.run(batch_bytes, lambda x=x: on_gpu.copy_(x))
        else:
            timer.run(batch_bytes, lambda x=x: on_gpu.copy_(x, non_blocking=True))
        loss = (model(on_gpu.mean(dim=(2, 3))).squeeze(1) - y.to(dev)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        kept.append(batch)
    torch.cuda.synchronize()
    time.sleep(a.hold_ms / 1000)  # the peak held long enough for several device samples
    gbps = timer.gbps()
    note(copy_gbps=gbps, loop_s=round(time.perf_counter() - t0, 3), batches_seen=len(timer.rates))
    print(
        f"train_loop {a.mode}: {len(timer.rates)} batches of {batch_bytes} bytes, {gbps or 0:.2f} GB/s host to device"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
