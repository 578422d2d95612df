"""What the two advice programs share (results/advice/README.md): the ways of getting host bytes to
the GPU that `pinreport advise` costs, one per --mode, the copy timing, and the notes each program
appends to $PINBENCH_TRACE_NOTES (docs/trace.md) so the trace can tell its needed bytes and copy
speed. Needs PyTorch with CUDA; nothing else beyond the standard library.

  as_is     what the program does today: PyTorch's pinned memory (the caching host allocator)
  exact     the same buffers pinned at their exact size outside the caching allocator
            (a pageable tensor registered with cudaHostRegister): the over_allocation option
  ring      copies through a staging ring of RING_SLOTS x RING_SLOT_BYTES pinned once, from
            pageable memory: the staging_ring option (64 MiB, the advice's default --ring)
  pageable  no pinned memory: the pageable option
  window    each buffer registered just around its copy: the register_window option
"""

import json
import os
import statistics
import time
import weakref

import torch

MODES = ("as_is", "exact", "ring", "pageable", "window")
MIB = 1024 * 1024
RING_SLOTS = 2
RING_SLOT_BYTES = 32 * MIB


def note(**facts) -> None:
    """One JSON line of facts for the trace (a later key wins)."""
    path = os.environ.get("PINBENCH_TRACE_NOTES")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(facts) + "\n")


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def register(t: torch.Tensor) -> None:
    rc = torch.cuda.cudart().cudaHostRegister(t.data_ptr(), _nbytes(t), 0)
    if int(rc) != 0:
        raise RuntimeError(f"cudaHostRegister of {_nbytes(t)} bytes failed: {rc}")


def unregister(t: torch.Tensor) -> None:
    torch.cuda.cudart().cudaHostUnregister(t.data_ptr())


def exact_pinned_like(src: torch.Tensor, owner: object | None = None) -> torch.Tensor:
    """A copy of `src` in host memory pinned at exactly its size; unregistered when `owner`
    (default: the returned tensor's holder, the caller) is collected."""
    out = torch.empty_like(src, device="cpu").contiguous()
    register(out)
    out.copy_(src)
    weakref.finalize(owner if owner is not None else out, unregister, out)
    return out


class Ring:
    """A staging ring: slots pinned once; each copy goes pageable -> slot (CPU) -> device."""

    def __init__(self, slots: int = RING_SLOTS, slot_bytes: int = RING_SLOT_BYTES) -> None:
        self.slots = [torch.empty(slot_bytes, dtype=torch.uint8, pin_memory=True) for _ in range(slots)]
        self.events = [torch.cuda.Event() for _ in range(slots)]
        self.slot_bytes = slot_bytes

    def copy(self, dst: torch.Tensor, src: torch.Tensor) -> None:
        s = src.contiguous().view(-1).view(torch.uint8)
        d = dst.view(-1).view(torch.uint8)
        for i, off in enumerate(range(0, s.numel(), self.slot_bytes)):
            k = i % len(self.slots)
            n = min(self.slot_bytes, s.numel() - off)
            self.events[k].synchronize()  # the slot's previous copy has left it
            self.slots[k][:n].copy_(s[off : off + n])
            d[off : off + n].copy_(self.slots[k][:n], non_blocking=True)
            self.events[k].record()
        torch.cuda.current_stream().synchronize()


class CopyTimer:
    """Host-to-device bytes per second of each timed copy, as the benchmarks time theirs (the
    copy call to the stream's end)."""

    def __init__(self) -> None:
        self.rates: list[float] = []

    def run(self, nbytes: int, copy) -> None:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        copy()
        torch.cuda.synchronize()
        self.rates.append(nbytes / (time.perf_counter() - t0))

    def gbps(self) -> float | None:
        return statistics.median(self.rates) / 1e9 if self.rates else None
