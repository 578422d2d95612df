"""Loading a Google Benchmark JSON file (benchmarks/README.md names its rows): the one reader
that the HTML report (bench_rows.py) and benchmarks/summarize.py share.

Only the `median` aggregate of each row is kept (the benchmark programs report aggregates only)
and rows that recorded an error are left out. The file is checked against data/bench.schema.json
first: a median rate row (transfer, staging, staging_baseline) without an error carries a rate
above 0 and its bytes, or the file is refused, named with the row (NotBenchmarkJson). pinreport
reads each row's name parts and numbers typed (BenchFile.rows, BenchRow: a rate that is not a
positive number, in a row the schema does not bound, is None, never divided by);
summarize.py reads the rows as written (BenchFile.medians).
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pinreport.base.errors import BadInputError
from pinreport.base.input_file import BENCH_LIMIT, read_bounded
from pinreport.base.schema import schema_of


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _positive(value: Any) -> float | None:
    n = _number(value)
    return n if n is not None and n > 0 else None


@dataclass(frozen=True)
class BenchRow:
    """One median row, typed: its name's parts ("transfer/pinned/h2d/1GiB" -> transfer, pinned,
    h2d, 1GiB), its rate and its bytes. A rate that is not a positive number is None."""

    name: str
    parts: tuple[str, ...]
    gbps: float | None
    fraction_of_link: float | None
    bytes: float  # 0 where the row records none
    pinned_bytes: float  # the staging ring's pinned bytes; 0 where none

    @classmethod
    def from_json(cls, name: str, row: dict[str, Any]) -> "BenchRow":
        fraction = row.get("fraction_of_link")
        return cls(
            name=name,
            parts=tuple(name.split("/")),
            gbps=_positive(row.get("GBps")),
            fraction_of_link=_number(fraction),
            bytes=_number(row.get("bytes")) or 0.0,
            pinned_bytes=_number(row.get("pinned_bytes")) or 0.0,
        )


class NotBenchmarkJson(ValueError):
    """The file cannot be read, or is not a Google Benchmark JSON document."""


def base_name(run_name: str) -> str:
    """'transfer/pinned/h2d/1GiB/iterations:1/repeats:7/manual_time' -> 'transfer/pinned/h2d/1GiB'."""
    return run_name.split("/iterations:")[0].split("/repeats:")[0].split("/manual_time")[0]


@dataclass(frozen=True)
class BenchFile:
    """The median rows of one benchmark JSON file, keyed by base name, in the file's order."""

    path: Path
    context: dict[str, Any]
    medians: dict[str, dict[str, Any]]

    def gbps(self, name: str) -> float:
        return self.medians[name]["GBps"]

    def link_bytes_per_second(self) -> float | None:
        value = self.context.get("pcie.link_bytes_per_second", "")
        try:
            return float(value)
        except (TypeError, ValueError):  # "not available: ..." or "not computed"
            return None

    @property
    def replayed(self) -> bool:
        """The replay backend wrote it (context cuda.backend), not a GPU."""
        return "replay" in str(self.context.get("cuda.backend", "")).lower()

    @property
    def rows(self) -> tuple[BenchRow, ...]:
        """The median rows, typed, in the file's order."""
        return tuple(BenchRow.from_json(name, row) for name, row in self.medians.items())

    @property
    def gpu_name(self) -> str | None:
        """The GPU the context names (gpu.name); None when it names none."""
        return str(self.context.get("gpu.name")) if self.context.get("gpu.name") else None

    @property
    def driver_release(self) -> str | None:
        return str(self.context.get("driver.release")) if self.context.get("driver.release") else None


def load_bench(path: str | Path) -> BenchFile:
    """The median rows of `path`; NotBenchmarkJson when it cannot be read as one."""
    try:
        # NaN and Infinity (Google Benchmark's spread of a constant) read as null.
        doc = json.loads(read_bounded(path, BENCH_LIMIT).decode("utf-8"), parse_constant=lambda _: None)
        rows = doc["benchmarks"]
        if not isinstance(rows, list):
            raise TypeError("benchmarks is not a list")
        schema_of("bench").check(doc, str(path))
        medians = {
            base_name(str(row.get("run_name") or row.get("name", ""))): row
            for row in rows
            if row.get("aggregate_name") == "median" and not row.get("error_occurred")
        }
    except BadInputError as e:  # the schema's bounds: a rate row's rate above 0, its bytes
        raise NotBenchmarkJson(str(e)) from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise NotBenchmarkJson(f"{path}: not a Google Benchmark JSON file ({e})") from None
    return BenchFile(Path(path), doc.get("context") or {}, medians)
