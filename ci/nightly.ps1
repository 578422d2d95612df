# The nightly job on Windows (GitHub Actions, Task Scheduler, Jenkins, GitLab). Thin on purpose:
# it finds Git for Windows' bash and runs ci/nightly.sh with every argument unchanged; ci/README.md
# lists them and the exit codes (0; 1, 2, 3, 4; 128+N cancelled). Windows measures with the
# package CI built, so nothing is compiled here: the zip's pinbench.exe and its wheelhouse, from
# which ci/nightly.sh installs pinreport into a venv with no index (ci/package.py,
# docs/package-windows.md; nightly-windows.yml):
#
#   powershell -NoProfile -ExecutionPolicy Bypass -File ci\nightly.ps1 `
#        --package C:\pinbench\pinbench-0.1.0-windows-x64\pinbench.exe `
#        --wheelhouse C:\pinbench\pinbench-0.1.0-windows-x64\wheelhouse `
#        --store-home D:/pinbench-store --out out/nightly
#
# Runs in Windows PowerShell 5.1, part of every Windows 10 and 11 (and in PowerShell 7).
# Needs: Git for Windows, Python 3.11+ (found by ci/nightly.sh: --python, or py -3 / python on the
# PATH; none is exit 3), the NVIDIA driver. Exit 3 (infrastructure) when bash is missing.
$ErrorActionPreference = 'Stop'
$root = Split-Path -Parent $PSScriptRoot

# Git for Windows' bash, never WSL's (C:\Windows\System32\bash.exe runs in another OS).
$git = Get-Command git.exe -ErrorAction SilentlyContinue
$candidates = @()
if ($git) { $candidates += Join-Path (Split-Path -Parent (Split-Path -Parent $git.Path)) 'bin\bash.exe' }
$candidates += Join-Path $env:ProgramFiles 'Git\bin\bash.exe'
$bash = $candidates | Where-Object { Test-Path $_ } | Select-Object -First 1
if (-not $bash) {
    Write-Host "nightly: Git for Windows' bash.exe not found (infrastructure, exit 3)"
    exit 3
}

# Native programs' output on standard error is not an error here: bash's exit code decides.
$ErrorActionPreference = 'Continue'
& $bash (Join-Path $root 'ci/nightly.sh') @args
exit $LASTEXITCODE
