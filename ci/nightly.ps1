# The nightly job on Windows (GitHub Actions, Task Scheduler, Jenkins, GitLab). Thin on purpose:
# it finds Git for Windows' bash and runs ci/nightly.sh with every argument unchanged; ci/README.md
# lists them and the exit codes (0, 1, 2, 3; 4 internal error). Windows measures with the pinbench
# CI built, so nothing is compiled here: the pinbench wheel pip-installed into .venv (ci/wheel.py,
# docs/pip-install.md; nightly-windows.yml), or the zip's pinbench.exe (ci/package.py):
#
#   pwsh -File ci\nightly.ps1 --package C:/pinbench/.venv/Scripts/pinbench.exe `
#        --store-home D:/pinbench-store --out out/nightly
#
# Needs: Git for Windows, Python 3.11+ with pinreport installed (the wheel's, in .venv, or pinreport
# on the PATH), the NVIDIA driver. Exit 3 (infrastructure) when bash is missing.
$ErrorActionPreference = 'Stop'
$root = Split-Path -Parent $PSScriptRoot

# Git for Windows' bash, never WSL's (C:\Windows\System32\bash.exe runs in another OS).
$git = Get-Command git.exe -ErrorAction SilentlyContinue
$candidates = @()
if ($git) { $candidates += Join-Path (Split-Path -Parent (Split-Path -Parent $git.Source)) 'bin\bash.exe' }
$candidates += Join-Path $env:ProgramFiles 'Git\bin\bash.exe'
$bash = $candidates | Where-Object { Test-Path $_ } | Select-Object -First 1
if (-not $bash) {
    Write-Host "nightly: Git for Windows' bash.exe not found (infrastructure, exit 3)"
    exit 3
}

& $bash (Join-Path $root 'ci/nightly.sh') @args
exit $LASTEXITCODE
