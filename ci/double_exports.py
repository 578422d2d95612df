#!/usr/bin/env python3
"""Checks that the Windows test-double DLLs export what the harness looks up.

Usage: ci/double_exports.py DOUBLE_DIR  (build/mingw/harness/tests/doubles/driver)

The names come from where the harness looks them up, so a new entry point there fails this until
the double exports it: every entry of PINBENCH_DRIVER_ENTRY_POINTS (harness/src/cuda/driver_api.hpp)
in current/nvcuda.dll, one name of every NVML resolve<>(...) list (harness/src/cuda/nvml.cpp) in
current/nvml.dll, none of the VMM/pool entry points in old/nvcuda.dll (the "old driver"), and,
where the CUPTI double was built, every CUPTI function the trace injection library resolves
(harness/src/cuda/trace_injection.cpp) in cupti/cupti64_test_double.dll.
Exports are read with objdump -p; prints one line per DLL, exits 1 on a mismatch.
"""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OBJDUMP = "x86_64-w64-mingw32-objdump"


def exports(dll: pathlib.Path) -> set[str]:
    text = subprocess.run([OBJDUMP, "-p", str(dll)], check=True, capture_output=True, text=True).stdout
    table = text.split("[Ordinal/Name Pointer] Table", 1)[1]
    return {m.group(1) for m in re.finditer(r"^\s*\[\s*\d+\]\s+(\S+)$", table, re.MULTILINE)}


def driver_entry_points() -> list[str]:
    text = (ROOT / "harness/src/cuda/driver_api.hpp").read_text()
    return re.findall(r'X\(\w+,\s*"(cu\w+)"', text)


def nvml_lookups() -> list[list[str]]:
    text = (ROOT / "harness/src/cuda/nvml.cpp").read_text()
    return [re.findall(r'"(\w+)"', m.group(1)) for m in re.finditer(r"resolve<\w+>\(\s*l,\s*\{([^}]*)\}", text)]


def cupti_lookups() -> list[str]:
    text = (ROOT / "harness/src/cuda/trace_injection.cpp").read_text()
    return re.findall(r'symbol\("(cupti\w+)"\)', text)


def main() -> int:
    folder = pathlib.Path(sys.argv[1])
    problems = []
    cuda_names = driver_entry_points()
    cuda = exports(folder / "current/nvcuda.dll")
    problems += [f"current/nvcuda.dll does not export {n}" for n in cuda_names if n not in cuda]
    nvml_groups = nvml_lookups()
    nvml = exports(folder / "current/nvml.dll")
    problems += [f"current/nvml.dll exports none of {g}" for g in nvml_groups if not set(g) & nvml]
    old = exports(folder / "old/nvcuda.dll")
    modern = [n for n in cuda_names if n.startswith(("cuMemCreate", "cuMemMap", "cuMemPool"))]
    problems += [f"old/nvcuda.dll exports {n}, which the old driver lacks" for n in modern if n in old]
    if not cuda_names or not nvml_groups or not modern:
        problems.append("found no entry points in driver_api.hpp or nvml.cpp: the patterns here are stale")
    cupti_dll = folder / "cupti/cupti64_test_double.dll"
    cupti_names = cupti_lookups()
    cupti_said = ", the CUPTI double not built (no crt/host_defines.h)"
    if cupti_dll.exists():
        cupti = exports(cupti_dll)
        problems += [f"cupti/cupti64_test_double.dll does not export {n}" for n in cupti_names if n not in cupti]
        cupti_said = f", cupti/cupti64_test_double.dll all {len(cupti_names)} CUPTI functions the injection resolves"
        if not cupti_names:
            problems.append("found no cupti symbols in trace_injection.cpp: the pattern here is stale")
    print(
        f"double_exports: current/nvcuda.dll exports all {len(cuda_names)} driver entry points, "
        f"current/nvml.dll one of each of {len(nvml_groups)} NVML lookups, old/nvcuda.dll none of {modern}"
        f"{cupti_said}"
        if not problems
        else "double_exports: " + "; ".join(problems)
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
