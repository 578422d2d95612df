"""Reading a results file's environment record: its store key, and what changed between two.

The field names are those written by harness/src/results/environment_record.cpp (checked by
tests/test_environment_fixture.py against records it writes); the store key mirrors
StoreKey in harness/include/pinbench/store/store.hpp.
"""

import re
from dataclasses import astuple, dataclass
from typing import Any

_NOT_SLUG = re.compile(r"[^a-z0-9]+")

# The driver model of a WSL2 run: the Windows WDDM driver through /dev/dxg (kWsl2DriverModel in
# harness/include/pinbench/results/environment_record.hpp; tests/test_environment_fixture.py checks it
# against the record C++ writes).
WSL2_MODEL = "WDDM (WSL2)"


def model_family(model: str) -> str:
    """The driver model a scenario's driver_models and expect entries name: WDDM for WSL2 (as
    driver_model_family() in the harness), the model itself otherwise."""
    return "WDDM" if model == WSL2_MODEL else model


def slug(text: str) -> str:
    """As store_slug(): lowercase; every run of other characters becomes one '-'."""
    return _NOT_SLUG.sub("-", text.lower()).strip("-")


@dataclass(frozen=True, order=True)
class StoreKey:
    """Where a results file is filed (store.hpp). `group` is what baselines must share."""

    platform: str
    driver_model: str
    gpu: str
    gpu_count: str
    release: str

    @property
    def group(self) -> tuple[str, str, str, str]:
        return (self.platform, self.driver_model, self.gpu, self.gpu_count)

    def describe_group(self) -> str:
        return "/".join(self.group)


def _devices(env: dict[str, Any]) -> list[dict[str, Any]]:
    devices = env.get("devices")
    return [d for d in devices if isinstance(d, dict)] if isinstance(devices, list) else []


def driver_models(env: dict[str, Any]) -> list[str]:
    """The current driver model of every described device, as recorded ("WDDM", "linux" ...)."""
    out = []
    for d in _devices(env):
        model = d.get("driver_model")
        current = model.get("current") if isinstance(model, dict) else None
        out.append(current if isinstance(current, str) else "unknown")
    return out


def driver_release(env: dict[str, Any]) -> str | None:
    driver = env.get("driver")
    release = driver.get("release") if isinstance(driver, dict) else None
    return release if isinstance(release, str) and release else None


def _per_device(env: dict[str, Any], read) -> str | None:
    """The distinct slugs of a per-device value, in device order, joined by "--" (store.md). A
    device without the value counts as "unknown" beside known ones; None when no device has it."""
    out: list[str] = []
    for d in _devices(env):
        value = read(d)
        s = (slug(value) if isinstance(value, str) and value != "unknown" else "") or "unknown"
        if s not in out:
            out.append(s)
    return None if out in ([], ["unknown"]) else "--".join(out)


def _release_component(release: str | None) -> str | None:
    if not release or release == "unknown":
        return None
    return re.sub(r"[^0-9A-Za-z._-]", "-", release).strip(".-") or None


_WINDOWS_RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(?=\.|$)", re.IGNORECASE)


def windows_safe(component: str) -> str:
    """As windows_safe_component() in the harness: a folder name that Windows reserves for a
    device (CON, PRN, AUX, NUL, COM0-9, LPT0-9, in any case, alone or before a '.') gets a '_'
    after the reserved part: "con" -> "con_", "NUL.1" -> "NUL_.1"."""
    return _WINDOWS_RESERVED.sub(lambda m: m.group(1) + "_", component, count=1)


def store_key(env: dict[str, Any]) -> StoreKey:
    """The five store components of an environment record, as store_key_of() in the harness
    (docs/store.md); "unknown-<field>" for a value the record does not have."""

    def model(d: dict[str, Any]) -> Any:
        m = d.get("driver_model")
        return m.get("current") if isinstance(m, dict) else None

    platform = env.get("platform")
    platform = slug(platform) if isinstance(platform, str) and platform != "unknown" else ""
    count = env.get("cuda_device_count")
    key = StoreKey(
        platform=platform or "unknown-platform",
        driver_model=_per_device(env, model) or "unknown-driver-model",
        gpu=_per_device(env, lambda d: d.get("name")) or "unknown-gpu",
        gpu_count=f"{count}gpu"
        if isinstance(count, int) and not isinstance(count, bool) and count >= 0
        else "unknown-gpu-count",
        release=_release_component(driver_release(env)) or "unknown-release",
    )
    return StoreKey(*(windows_safe(part) for part in astuple(key)))


@dataclass(frozen=True)
class Environment:
    """A results file's environment record, read once (ResultsFile.environment): what the stages
    ask of it, typed. `record` is the record as written, for what diffs it field by field
    (environment_changes) and the tables that show it whole."""

    record: dict[str, Any]
    key: StoreKey
    release: str | None  # the driver release; None when the record has none
    driver_models: tuple[str, ...]  # each described device's, in device order
    platform: str | None  # "linux", "windows" ... as recorded
    replayed: bool  # the record says the replay backend wrote it
    device_names: tuple[str, ...]  # each described device's name, in device order ("" where it has none)

    @property
    def gpu(self) -> str | None:
        """The first described device's name; None when it has none."""
        return (self.device_names[0] or None) if self.device_names else None

    @property
    def memory_total(self) -> int | None:
        """The smallest total memory of the described GPUs (NVML's, else the runtime's); None
        when no device records one."""
        totals = []
        for d in _devices(self.record):
            nvml = d.get("nvml")
            total = (nvml.get("memory_total") if isinstance(nvml, dict) else None) or d.get("total_global_mem")
            if isinstance(total, int) and total > 0:
                totals.append(total)
        return min(totals) if totals else None

    @classmethod
    def from_json(cls, record: Any) -> "Environment":
        """The environment of a results document's "environment" member (anything: a document
        that failed its checks is still labelled, as "unknown-...")."""
        env = record if isinstance(record, dict) else {}
        platform = env.get("platform")
        names = tuple(d.get("name") if isinstance(d.get("name"), str) else "" for d in _devices(env))
        return cls(
            record=env,
            key=store_key(env),
            release=driver_release(env),
            driver_models=tuple(driver_models(env)),
            platform=platform if isinstance(platform, str) else None,
            replayed=env.get("replayed") is True,
            device_names=names,
        )


# --- what else changed ------------------------------------------------------------------------

# The driver release is what is being compared; the replay flag is shown as REPLAYED anyway.
_NOT_DIFFED = {"driver.release", "driver.release_source", "replayed"}


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
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


def comparable_fields(doc: dict[str, Any]) -> dict[str, Any]:
    """Environment (and tool) fields of a results document, flattened to dotted paths.

    Other compute processes are summarised by their count: their pids change every night,
    their presence is what matters."""
    env = dict(doc.get("environment") or {})
    others = env.pop("other_compute_processes", None)
    out: dict[str, Any] = {}
    _flatten(env, "", out)
    if isinstance(others, list):
        out["other_compute_processes"] = f"{len(others)} process(es)"
    tool = doc.get("tool")
    if isinstance(tool, dict):
        _flatten(tool, "tool", out)
    for field in _NOT_DIFFED:
        out.pop(field, None)
    return out


@dataclass(frozen=True)
class EnvironmentChange:
    field: str
    baseline: tuple[Any, ...]  # the distinct values among the baseline files
    current: Any

    def describe(self) -> str:
        before = " | ".join(str(v) for v in self.baseline)
        return f"{self.field}: {before} -> {self.current}"


ABSENT = "(absent)"


def environment_changes(current: dict[str, Any], baselines: list[dict[str, Any]]) -> list[EnvironmentChange]:
    """Every environment field (except the driver release) whose value in the current
    document differs from its value in any of the baseline documents.

    The tool record of a replayed document (backend "replay") is the replaying binary's (its
    version, its compiler), not the measurement's: when the current file is replayed, tool.*
    is left out on both sides, so a rebuilt pinbench never reads as a change of the machine."""
    cur = comparable_fields(current)
    bases = [comparable_fields(b) for b in baselines]
    if current.get("backend") == "replay":
        cur = {k: v for k, v in cur.items() if not k.startswith("tool.")}
        bases = [{k: v for k, v in b.items() if not k.startswith("tool.")} for b in bases]
    changes = []
    for field in sorted(set(cur).union(*[set(b) for b in bases])):
        now = cur.get(field, ABSENT)
        before: list[Any] = []
        for b in bases:
            v = b.get(field, ABSENT)
            if v not in before:
                before.append(v)
        if any(v != now for v in before):
            changes.append(EnvironmentChange(field, tuple(before), now))
    return changes
