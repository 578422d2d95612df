"""The options for one scope (the program or a call site), each with its measured consequences:
the pinned bytes after the change, the VRAM saved (from the store's fit, or scaled from the
trace's own observed cost where no store was given, which is said), and the copy speed relative
to the pinned copies now, from the benchmark row or stored run named in its evidence. What an
option lacks is a Missing, never a guess.

- over_allocation: bytes held beyond what the program's buffers needed, where the trace can tell:
  power-of-two blocks against the batch bytes the program noted (`batch_bytes`, or `needed_bytes`
  for the whole program), a host pool's reservation against its allocations outstanding at the
  peak. The copies stay pinned, so the speed stays as it is.
- staging_ring: a ring of R bytes (`--ring`, the measured ring nearest it) in place of the scope's
  pinned buffers; copies go through the ring from pageable memory.
- pageable: no pinned buffer; pageable copies at the program's transfer size.
- register_window: one buffer of the transfer size registered around each copy.
"""

from dataclasses import dataclass

from pinreport.advice.cost import Cost, Fits, Observed
from pinreport.advice.evidence import (
    RUN_STORE,
    Benches,
    Machine,
    Missing,
    Source,
    StoredRun,
    pageable_speed,
    register_window_speed,
    ring_speed,
)
from pinreport.analysis.trace import ACQUIRING
from pinreport.base.units import format_bytes
from pinreport.readers.trace import ProgramNotes, TraceFile

OVER_ALLOCATION = "over_allocation"
STAGING_RING = "staging_ring"
PAGEABLE = "pageable"
REGISTER_WINDOW = "register_window"
OPTION_NAMES = (OVER_ALLOCATION, STAGING_RING, PAGEABLE, REGISTER_WINDOW)

NOTE_HOW = (
    'append {"batch_bytes": N} (each pinned batch) or {"needed_bytes": N} (all the program\'s pinned'
    " buffers at once) as a line to the file $PINBENCH_TRACE_NOTES names, then trace again"
    " (docs/trace.md, Notes from the program)"
)
# PyTorch's caching host allocator rounds every request up to a power of two before either of its
# paths (ATen/core/CachingHostAllocator.h: roundSize = PowerOf2Ceil(size), then
# allocate_host_memory(roundSize)); the cudaHostRegister path only changes the entry point.
TORCH_SETTING = (
    "no PyTorch setting removes the rounding: pinned_use_cuda_host_register:True in"
    " PYTORCH_CUDA_ALLOC_CONF pins the same power-of-two block through cudaHostRegister"
    " (the caching host allocator rounds before either path); pin buffers of the exact size outside"
    " the caching allocator (a pageable tensor registered with torch.cuda.cudart().cudaHostRegister),"
    " or make each pinned batch a power of two in bytes"
)


@dataclass(frozen=True)
class Option:
    name: str
    scope: str
    change: str  # what to change, in plain words
    applies: bool  # False: nothing to gain in this scope (notes say why)
    bytes_after: int | None = None
    bytes_saved: int | None = None
    vram_saved: float | None = None  # over all GPUs
    vram_after: float | None = None
    vram_after_bound: float | None = None
    vram_basis: str = ""
    speed: float | None = None  # copy speed relative to pinned now (1.0: as fast)
    speed_detail: str = ""
    evidence: tuple[Source, ...] = ()
    missing: tuple[Missing, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        """Every number it needs is measured for this machine."""
        return self.applies and self.vram_saved is not None and self.speed is not None and not self.missing

    @property
    def speed_lost_pct(self) -> float | None:
        return None if self.speed is None else max(0.0, (1.0 - self.speed) * 100.0)


@dataclass
class Context:
    """What every option of one trace reads."""

    trace: TraceFile
    machine: Machine
    fits: Fits
    gpus: int
    benches: Benches
    runs: list[StoredRun]
    ring_bytes: int
    op: str
    store_given: bool
    program_observed: Observed
    program_held: int
    trace_source: Source
    notes: ProgramNotes


def power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def next_power_of_two(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


def transfer_size(ctx: Context, cost: Cost) -> tuple[int, str]:
    """The bytes of one copy: noted by the program, else its most held block."""
    for key, v in (("transfer_bytes", ctx.notes.transfer_bytes), ("batch_bytes", ctx.notes.batch_bytes)):
        if v is not None and v > 0:
            return v, f"the program's notes.{key}"
    if cost.blocks:
        size = next(iter(cost.blocks))
        return size, "the block held most often at the peak (the program noted no transfer_bytes)"
    return 0, "nothing held"


def _vram(ctx: Context, cost: Cost, after: dict[str, int]) -> tuple[float, float, float | None, str] | Missing:
    """(saved, after, after's bound) over all GPUs and the basis, or what is missing."""
    before = ctx.fits.predict(cost.by_family)
    now = ctx.fits.predict(after)
    if before is not None and now is not None:
        return (before[0] - now[0]) * ctx.gpus, now[0] * ctx.gpus, now[1] * ctx.gpus, "store fit"
    if not ctx.store_given and ctx.program_observed.bytes is not None and ctx.program_held > 0:
        rate = ctx.program_observed.bytes / ctx.program_held
        after_held = sum(after.values())
        return (
            (cost.held - after_held) * rate,
            after_held * rate,
            None,
            "scaled from the trace's own observed cost (one point, no bound: a store adds the fit)",
        )
    lacking = sorted({f for f in (*cost.by_family, *after) if ctx.fits.fit_for(f) is None})
    if not ctx.store_given:
        why = "no store was given"
        if ctx.program_observed.bytes is None:
            why += f", and the trace has no cost of its own to scale ({ctx.program_observed.why})"
        return Missing("VRAM saved", why, RUN_STORE)
    return Missing(
        "VRAM saved",
        f"the store has no usable fit for {', '.join(lacking)} on {ctx.machine.words()}",
        RUN_STORE,
    )


def _with_vram(ctx: Context, cost: Cost, after: dict[str, int], **fields) -> Option:
    v = _vram(ctx, cost, after)
    missing = tuple(fields.pop("missing", ()))
    if isinstance(v, Missing):
        return Option(bytes_after=sum(after.values()), missing=(*missing, v), **fields)
    saved, now, bound, basis = v
    return Option(
        bytes_after=sum(after.values()),
        vram_saved=saved,
        vram_after=now,
        vram_after_bound=bound,
        vram_basis=basis,
        missing=missing,
        **fields,
    )


def _pool_outstanding(trace: TraceFile) -> int | None:
    """Bytes allocated from host pools and not yet freed when the peak began."""
    peak_t = trace.pinned.peak_t_ms
    if peak_t is None:
        return None
    live: dict[int, int] = {}
    for c in trace.calls:
        if c.t_ms > peak_t or c.result != 0:
            continue
        if c.api.startswith("cuMemAllocFromPoolAsync"):
            live[c.address] = c.bytes
        elif c.api.startswith("cuMemFreeAsync"):
            live.pop(c.address, None)
    return sum(live.values())


def _is_torch(trace: TraceFile, site: str) -> bool:
    if "torch" in site:
        return True
    return any(
        any("torch" in f for f in c.stack)
        for c in trace.calls
        if c.api in ACQUIRING and (site == "program" or site in c.stack)
    )


def over_allocation(ctx: Context, cost: Cost) -> Option:
    base = dict(name=OVER_ALLOCATION, scope=cost.scope)
    needed_total = ctx.notes.needed_bytes
    batch = ctx.notes.batch_bytes
    over, how, setting = 0, [], ""
    torch = _is_torch(ctx.trace, cost.scope)
    whole = cost.scope == "program" or cost.held == ctx.program_held  # the program, or its one site
    if whole and needed_total is not None and needed_total > 0:
        over = max(cost.held - needed_total, 0)
        how.append(f"held {format_bytes(cost.held)} against notes.needed_bytes {format_bytes(needed_total)}")
    elif batch is not None and batch > 0:
        block = next_power_of_two(batch)
        n = cost.blocks.get(block, 0) if block != batch else 0
        if n:
            over = n * (block - batch)
            how.append(
                f"{n} blocks of {format_bytes(block)} for batches of {format_bytes(batch)}"
                f" (notes.batch_bytes; {block / batch:.2f}x)"
            )
    pool = cost.by_family.get("pool_host", 0)
    if pool and not how:  # notes.needed_bytes already counts what the pool holds
        outstanding = _pool_outstanding(ctx.trace)
        if outstanding is not None and pool > outstanding:
            over += pool - outstanding
            how.append(
                f"host pools reserved {format_bytes(pool)} for {format_bytes(outstanding)} of allocations"
                " outstanding at the peak"
            )
            setting = (
                "release what the pool reserves beyond use: cuMemPoolTrimTo after its peak, and a release"
                " threshold (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) of 0 so freed memory is not kept"
            )
    if over <= 0:
        big = [b for b in cost.blocks if b >= 1024 * 1024]
        asked = ctx.notes.asked
        if big and all(power_of_two(b) for b in big) and not how and not set(big) <= asked:
            most = sum(b * n for b, n in cost.blocks.items() if power_of_two(b))
            why = (
                f"every block held is a power of two ({', '.join(format_bytes(b) for b in big[:3])})"
                + (", as PyTorch's caching host allocator rounds" if torch else "")
                + f"; the trace cannot tell what the buffers needed: between {format_bytes(most / 2)}"
                f" and {format_bytes(most)} of the {format_bytes(most)}"
            )
            return Option(
                change="pin only the bytes the buffers need",
                applies=True,
                missing=(Missing("the bytes the program's buffers needed", why, NOTE_HOW),),
                notes=(TORCH_SETTING,) if torch else (),
                **base,
            )
        return Option(
            change="pin only the bytes the buffers need",
            applies=False,
            notes=("the trace shows no bytes held beyond what the program asked or noted",),
            **base,
        )
    if torch and (batch or needed_total):
        setting = TORCH_SETTING
    after = dict(cost.by_family)
    # The saving comes off the family that over-allocates: the pool's, else the largest.
    fam = "pool_host" if pool and not batch and not needed_total else max(after, key=after.get)
    after[fam] = max(after[fam] - over, 0)
    return _with_vram(
        ctx,
        cost,
        after,
        change=f"pin only the bytes the buffers need: {format_bytes(over)} less",
        applies=True,
        notes=(setting,) if setting else (),
        bytes_saved=over,
        speed=1.0,
        speed_detail="the copies stay pinned, through the same path",
        evidence=(Source(ctx.trace_source.what, ctx.trace_source.path, "; ".join(how), ctx.trace_source.machine),),
        **base,
    )


def staging_ring(ctx: Context, cost: Cost) -> Option:
    base = dict(name=STAGING_RING, scope=cost.scope)
    size, how = transfer_size(ctx, cost)
    got = ring_speed(ctx.benches, ctx.machine, size, ctx.ring_bytes, ctx.op)
    # Without a measured ring the option still costs the ring the user asked for (--ring), and
    # names what is missing instead of a speed.
    measured = not isinstance(got, Missing)
    point, ring = got if measured else (None, ctx.ring_bytes)
    about = "" if measured else "about "
    change = f"copy through a staging ring of {about}{format_bytes(ring)} (pinned once) from pageable memory"
    if cost.held <= ring:
        holds = f"holds {format_bytes(cost.held)}, no more" if measured else "holds no more"
        return Option(
            change=change, applies=False, notes=(f"the scope {holds} than the ring ({format_bytes(ring)})",), **base
        )
    if measured:
        said = dict(
            speed=point.ratio,
            speed_detail=point.detail,
            evidence=(point.source,),
            notes=(f"transfer size {format_bytes(size)}: {how}; measured at {format_bytes(point.size)}",),
        )
    else:
        said = dict(missing=(got,), notes=(f"transfer size: {how}",))
    return _with_vram(
        ctx, cost, {"host_alloc": ring}, change=change, applies=True, bytes_saved=cost.held - ring, **said, **base
    )


def pageable(ctx: Context, cost: Cost) -> Option:
    base = dict(name=PAGEABLE, scope=cost.scope, change="copy from pageable memory: pin nothing", applies=True)
    size, how = transfer_size(ctx, cost)
    got = pageable_speed(ctx.benches, ctx.machine, size, ctx.op)
    notes = (f"transfer size {format_bytes(size)}: {how}",)
    if isinstance(got, Missing):
        return _with_vram(ctx, cost, {}, bytes_saved=cost.held, missing=(got,), notes=notes, **base)
    return _with_vram(
        ctx,
        cost,
        {},
        bytes_saved=cost.held,
        speed=got.ratio,
        speed_detail=got.detail,
        evidence=(got.source,),
        notes=(f"{notes[0]}; measured at {format_bytes(got.size)}",),
        **base,
    )


def register_window(ctx: Context, cost: Cost) -> Option:
    size, how = transfer_size(ctx, cost)
    base = dict(
        name=REGISTER_WINDOW,
        scope=cost.scope,
        change=f"register each buffer (cudaHostRegister) just around its copy: one {format_bytes(size)} pinned"
        " at a time",
    )
    if cost.held <= size:
        return Option(
            applies=False, notes=(f"the scope holds no more than one transfer ({format_bytes(size)})",), **base
        )
    got = register_window_speed(ctx.runs, ctx.machine, size)
    notes = (f"transfer size {format_bytes(size)}: {how}",)
    if isinstance(got, Missing):
        said = dict(missing=(got,), notes=notes)
    else:
        said = dict(
            speed=got.ratio,
            speed_detail=got.detail,
            evidence=(got.source,),
            notes=(f"{notes[0]}; measured at {format_bytes(got.size)}",),
        )
    return _with_vram(ctx, cost, {"host_register": size}, applies=True, bytes_saved=cost.held - size, **said, **base)


def all_options(ctx: Context, cost: Cost) -> list[Option]:
    return [over_allocation(ctx, cost), staging_ring(ctx, cost), pageable(ctx, cost), register_window(ctx, cost)]
