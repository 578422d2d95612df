"""Reading a results file's environment record (also a trace's and a budget document's): its
store key, release, driver models, platform and device names, read once into Environment.

The field names are those written by harness/src/results/environment_record.cpp (checked by
tests/test_environment_fixture.py against records it writes); the store key is store_key.py's.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pinreport.base.schema import TEST_DOUBLE_MARKER
from pinreport.readers.store_key import StoreKey, store_key_of

# The driver model of a WSL2 run: the Windows WDDM driver through /dev/dxg (kWsl2DriverModel in
# harness/include/pinbench/results/environment_record.hpp; tests/test_environment_fixture.py checks it
# against the record C++ writes).
WSL2_MODEL = "WDDM (WSL2)"


def model_family(model: str) -> str:
    """The driver model a scenario's driver_models and expect entries name: WDDM for WSL2 (as
    driver_model_family() in the harness), the model itself otherwise."""
    return "WDDM" if model == WSL2_MODEL else model


def _devices(env: dict[str, Any]) -> list[dict[str, Any]]:
    devices = env.get("devices")
    return [d for d in devices if isinstance(d, dict)] if isinstance(devices, list) else []


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _model(device: dict[str, Any]) -> str | None:
    model = device.get("driver_model")
    return _text(model.get("current")) if isinstance(model, dict) else None


def driver_models(env: dict[str, Any]) -> list[str]:
    """The current driver model of every described device, as recorded ("WDDM", "linux" ...)."""
    return [_model(d) or "unknown" for d in _devices(env)]


def driver_release(env: dict[str, Any]) -> str | None:
    driver = env.get("driver")
    release = driver.get("release") if isinstance(driver, dict) else None
    return release if isinstance(release, str) and release else None


def _memory_total(device: dict[str, Any]) -> int | None:
    nvml = device.get("nvml")
    total = (nvml.get("memory_total") if isinstance(nvml, dict) else None) or device.get("total_global_mem")
    return total if isinstance(total, int) and not isinstance(total, bool) and total > 0 else None


@dataclass(frozen=True)
class Environment:
    """A results file's environment record, read once (ResultsFile.environment): what the stages
    ask of it, typed. The record field by field, for the tables that show it whole and the diff
    of two records, is ResultsFile.compared_fields (flattened())."""

    key: StoreKey
    release: str | None  # the driver release; None when the record has none
    driver_models: tuple[str, ...]  # each described device's, in device order
    platform: str | None  # "linux", "windows" ... as recorded
    replayed: bool  # the record says the replay backend wrote it
    device_names: tuple[str, ...]  # each described device's name, in device order ("" where it has none)
    memory_totals: tuple[int | None, ...] = ()  # each described device's total memory (NVML's, else the runtime's)

    @property
    def gpu(self) -> str | None:
        """The first described device's name; None when it has none."""
        return (self.device_names[0] or None) if self.device_names else None

    @property
    def memory_total(self) -> int | None:
        """The smallest total memory of the described GPUs; None when no device records one."""
        totals = [t for t in self.memory_totals if t is not None]
        return min(totals) if totals else None

    @property
    def by_test_double(self) -> bool:
        """Written by the pinbench test-double driver (docs/test-double.md): it measured nothing,
        so its results are never a baseline. True when the driver release or a device name carries
        the marker (as the harness's produced_by_test_double reads the same record)."""
        return (self.release is not None and TEST_DOUBLE_MARKER in self.release) or any(
            TEST_DOUBLE_MARKER in name for name in self.device_names
        )

    @classmethod
    def from_json(cls, record: Any) -> "Environment":
        """The environment of a results document's "environment" member (anything: a document
        that failed its checks is still labelled, as "unknown-...")."""
        env = record if isinstance(record, dict) else {}
        devices = _devices(env)
        count = env.get("cuda_device_count")
        release = driver_release(env)
        platform = _text(env.get("platform"))
        models = tuple(_model(d) for d in devices)
        names = tuple(_text(d.get("name")) for d in devices)
        return cls(
            key=store_key_of(
                platform,
                models,
                names,
                count if isinstance(count, int) and not isinstance(count, bool) else None,
                release,
            ),
            release=release,
            driver_models=tuple(m or "unknown" for m in models),
            platform=platform,
            replayed=env.get("replayed") is True,
            device_names=tuple(n or "" for n in names),
            memory_totals=tuple(_memory_total(d) for d in devices),
        )


def store_key(record: Any) -> StoreKey:
    """The store key of an environment record (Environment.from_json(record).key)."""
    return Environment.from_json(record).key


# --- the record field by field --------------------------------------------------------------------

# A field's value: a JSON scalar, or a summary in words ("unavailable (why)", "[]", "2 process(es)").
FieldValue = str | int | float | bool | None

# The driver release is what is being compared; the replay flag is shown as REPLAYED anyway.
_NOT_DIFFED = {"driver.release", "driver.release_source", "replayed"}


def _flatten(value: Any, prefix: str, out: dict[str, FieldValue]) -> None:
    if isinstance(value, dict):
        if set(value) == {"unavailable"}:
            out[prefix] = f"unavailable ({value['unavailable']})"
            return
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(value, list):
        if not value:
            out[prefix] = "[]"
        for i, v in enumerate(value):
            _flatten(v, f"{prefix}[{i}]", out)
    else:
        out[prefix] = value


def flattened(environment: Any, tool: Any) -> Mapping[str, FieldValue]:
    """An environment record and a tool record, flattened to dotted paths, the driver release and
    the replay flag left out (compare judges the one, the report labels the other). Other compute
    processes are summarised by their count: their pids change every night, their presence is
    what matters."""
    env = dict(environment) if isinstance(environment, dict) else {}
    others = env.pop("other_compute_processes", None)
    out: dict[str, FieldValue] = {}
    _flatten(env, "", out)
    if isinstance(others, list):
        out["other_compute_processes"] = f"{len(others)} process(es)"
    if isinstance(tool, dict):
        _flatten(tool, "tool", out)
    for name in _NOT_DIFFED:
        out.pop(name, None)
    return out
