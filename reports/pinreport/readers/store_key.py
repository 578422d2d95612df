"""The store key of a results file: where `pinbench store add` files it (docs/store.md), as
store_key_of() in the harness (harness/src/store/store.cpp; tests/test_store_key_fixture.py
checks the two against the cases C++ writes). Read from the environment record
(environment.py) once."""

import re
from dataclasses import astuple, dataclass

_NOT_SLUG = re.compile(r"[^a-z0-9]+")
_WINDOWS_RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(?=\.|$)", re.IGNORECASE)


def slug(text: str) -> str:
    """As store_slug(): lowercase; every run of other characters becomes one '-'."""
    return _NOT_SLUG.sub("-", text.lower()).strip("-")


def windows_safe(component: str) -> str:
    """As windows_safe_component() in the harness: a folder name that Windows reserves for a
    device (CON, PRN, AUX, NUL, COM0-9, LPT0-9, in any case, alone or before a '.') gets a '_'
    after the reserved part: "con" -> "con_", "NUL.1" -> "NUL_.1"."""
    return _WINDOWS_RESERVED.sub(lambda m: m.group(1) + "_", component, count=1)


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


def _per_device(values: tuple[str | None, ...]) -> str | None:
    """The distinct slugs of a per-device value, in device order, joined by "--" (store.md). A
    device without the value counts as "unknown" beside known ones; None when no device has it."""
    out: list[str] = []
    for value in values:
        s = (slug(value) if value is not None and value != "unknown" else "") or "unknown"
        if s not in out:
            out.append(s)
    return None if out in ([], ["unknown"]) else "--".join(out)


def _release_component(release: str | None) -> str | None:
    if not release or release == "unknown":
        return None
    return re.sub(r"[^0-9A-Za-z._-]", "-", release).strip(".-") or None


def store_key_of(
    platform: str | None,
    driver_models: tuple[str | None, ...],
    gpu_names: tuple[str | None, ...],
    gpu_count: int | None,
    release: str | None,
) -> StoreKey:
    """The five store components of an environment record's facts (each device's driver model
    and name, None where the record has none), as store_key_of() in the harness (docs/store.md);
    "unknown-<field>" for a value the record does not have."""
    shown = slug(platform) if platform is not None and platform != "unknown" else ""
    key = StoreKey(
        platform=shown or "unknown-platform",
        driver_model=_per_device(driver_models) or "unknown-driver-model",
        gpu=_per_device(gpu_names) or "unknown-gpu",
        gpu_count=f"{gpu_count}gpu" if gpu_count is not None and gpu_count >= 0 else "unknown-gpu-count",
        release=_release_component(release) or "unknown-release",
    )
    return StoreKey(*(windows_safe(part) for part in astuple(key)))
