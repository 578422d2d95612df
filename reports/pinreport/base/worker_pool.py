"""Independent pieces of work spread over this machine's cores, in worker processes.

The store's reads are many independent file checks (decompress, parse, schema check),
CPU-bound Python that threads would serialise on the GIL: a
year of nights read for the first time is 365 of them. PINREPORT_JOBS sets how many processes
(1: all in this one); by default one per core this process may run on. Below
MIN_ITEMS_PER_WORKER items a worker costs more to start than it saves, and the work stays here.
"""

import concurrent.futures
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from pinreport.base import signals
from pinreport.base.errors import UsageError

JOBS_VARIABLE = "PINREPORT_JOBS"
MIN_ITEMS_PER_WORKER = 4
MAX_WORKERS = 16  # past this, the disk and the harness's processes are the limit, not the cores

Item = TypeVar("Item")
Result = TypeVar("Result")


def cores() -> int:
    """The cores this process may run on (its affinity where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # Windows, macOS
        return os.cpu_count() or 1


def jobs() -> int:
    """PINREPORT_JOBS when set (a positive integer), else cores()."""
    given = os.environ.get(JOBS_VARIABLE, "").strip()
    if not given:
        return min(cores(), MAX_WORKERS)
    if not given.isdigit() or int(given) < 1:
        raise UsageError(f"{JOBS_VARIABLE}={given!r}: expected a positive whole number of processes")
    return min(int(given), MAX_WORKERS)


def _context():
    # fork where there is one: a worker starts with pinreport already imported (spawn imports
    # it again, about a second). Nothing here runs threads, so forking is safe.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else methods[0])


def map_in_processes(
    fn: Callable[[Item], Result], items: Sequence[Item], meanwhile: Callable[[], None] | None = None
) -> list[Result]:
    """[fn(item) for item in items], in order, over up to jobs() worker processes. fn must be a
    module-level function; items and results are pickled. An exception fn raises reaches the
    caller as it would in one process. Where worker processes cannot be started (no process
    semaphores, a worker killed), the work is done here instead: slower, never different.
    meanwhile: work of this process's own (an import), done while the workers work (first, when
    there are none)."""
    workers = min(jobs(), len(items) // MIN_ITEMS_PER_WORKER)
    if workers >= 2:
        try:
            with concurrent.futures.ProcessPoolExecutor(
                max_workers=workers, mp_context=_context(), initializer=signals.in_worker
            ) as pool:
                # map() hands out every item before it returns: the workers start on them now.
                results = pool.map(fn, items, chunksize=max(1, len(items) // (workers * 4)))
                if meanwhile is not None:
                    meanwhile()
                    meanwhile = None  # done: not again below if the workers fail
                return list(results)
        except (BrokenProcessPool, OSError, ImportError, NotImplementedError):
            pass
    if meanwhile is not None:
        meanwhile()
    return [fn(item) for item in items]
