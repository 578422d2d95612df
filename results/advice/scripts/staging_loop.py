"""A loop with one pinned staging tensor (program (b) of results/advice/README.md): each step fills
a 2.5 GiB staging tensor from host data and copies it to the GPU, as an offload or a weight-
streaming loop does. --mode picks how host bytes reach the GPU (pinning_modes.py): as_is
(torch.empty(..., pin_memory=True), which the caching host allocator rounds up to 4 GiB), exact,
ring, pageable, window. Notes needed_bytes, transfer_bytes and copy_gbps for the trace."""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402
from pinning_modes import MIB, MODES, CopyTimer, Ring, note, register, unregister  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=MODES, default="as_is")
    p.add_argument("--staging-mib", type=int, default=2560)
    p.add_argument("--iters", type=int, default=4)
    p.add_argument("--hold-ms", type=int, default=600)
    a = p.parse_args()
    n = a.staging_mib * MIB
    note(workload="advice_staging_loop", mode=a.mode, needed_bytes=n, transfer_bytes=n)
    dev = torch.empty(n, dtype=torch.uint8, device="cuda")
    source = torch.empty(n, dtype=torch.uint8).fill_(7)  # the host data, pageable
    timer = CopyTimer()
    staging = None
    if a.mode == "as_is":
        staging = torch.empty(n, dtype=torch.uint8, pin_memory=True)
    elif a.mode == "exact":
        staging = torch.empty(n, dtype=torch.uint8)
        register(staging)
    ring = Ring() if a.mode == "ring" else None
    t0 = time.perf_counter()
    for step in range(a.iters):
        source[:4096].fill_(step)
        if staging is not None:
            staging.copy_(source)
            timer.run(n, lambda: dev.copy_(staging, non_blocking=True))
        elif ring is not None:
            timer.run(n, lambda: ring.copy(dev, source))
        elif a.mode == "pageable":
            timer.run(n, lambda: dev.copy_(source))
        else:  # window: register around the copy

            def windowed():
                register(source)
                dev.copy_(source, non_blocking=True)
                torch.cuda.current_stream().synchronize()
                unregister(source)

            timer.run(n, windowed)
    torch.cuda.synchronize()
    if a.mode == "window":
        register(source)  # the peak of this mode is one registered buffer: hold it to be sampled
    time.sleep(a.hold_ms / 1000)
    if a.mode == "window":
        unregister(source)
    gbps = timer.gbps()
    note(copy_gbps=gbps, loop_s=round(time.perf_counter() - t0, 3))
    print(f"staging_loop {a.mode}: {a.iters} copies of {n} bytes, {gbps or 0:.2f} GB/s host to device")
    if a.mode == "exact":
        unregister(staging)
    return 0


if __name__ == "__main__":
    sys.exit(main())
