# The nightly job on Windows (GitHub Actions, Task Scheduler, Jenkins, GitLab). Thin on purpose:
# it only prepares what bash cannot (the MSVC developer environment, the vcpkg binary cache)
# and runs ci/nightly.sh with Git for Windows' bash and the windows-msvc preset. Every argument
# is passed on unchanged; ci/README.md lists them and the exit codes (0, 1, 2, 3; 4 internal error).
#
#   pwsh -File ci\nightly.ps1 --store-home D:/pinbench-store --out out/nightly
#
# Needs: Visual Studio 2022 (or Build Tools) with the C++ x64 tools, CUDA 12.x (CUDA_PATH),
# VCPKG_ROOT, Git for Windows. Exit 3 (infrastructure) when one is missing.
$ErrorActionPreference = 'Stop'
$root = Split-Path -Parent $PSScriptRoot

function Fail([string]$why) {
    Write-Host "nightly: $why (infrastructure, exit 3)"
    exit 3
}

# MSVC: cl, link, the Windows SDK, and the CMake and Ninja that ship with Visual Studio.
if (-not (Get-Command cl.exe -ErrorAction SilentlyContinue)) {
    $vswhere = Join-Path ${env:ProgramFiles(x86)} 'Microsoft Visual Studio\Installer\vswhere.exe'
    if (-not (Test-Path $vswhere)) { Fail "vswhere.exe not found: install Visual Studio 2022 with C++" }
    $vs = & $vswhere -latest -products * -requires Microsoft.VisualStudio.Component.VC.Tools.x86.x64 -property installationPath
    if (-not $vs) { Fail "no Visual Studio with the C++ x64 tools" }
    Import-Module (Join-Path $vs 'Common7\Tools\Microsoft.VisualStudio.DevShell.dll')
    Enter-VsDevShell -VsInstallPath $vs -SkipAutomaticLocation -DevCmdArguments '-arch=x64 -host_arch=x64' | Out-Null
}

if (-not $env:VCPKG_ROOT) { Fail "VCPKG_ROOT is not set (the windows-msvc preset uses its toolchain file)" }
# A persistent binary cache: vcpkg builds the dependencies once per runner, not every night.
if (-not $env:VCPKG_DEFAULT_BINARY_CACHE) {
    $env:VCPKG_DEFAULT_BINARY_CACHE = Join-Path $env:ProgramData 'pinbench\vcpkg-cache'
}
New-Item -ItemType Directory -Force -Path $env:VCPKG_DEFAULT_BINARY_CACHE | Out-Null

# Git for Windows' bash, never WSL's (C:\Windows\System32\bash.exe runs in another OS).
$git = Get-Command git.exe -ErrorAction SilentlyContinue
$candidates = @()
if ($git) { $candidates += Join-Path (Split-Path -Parent (Split-Path -Parent $git.Source)) 'bin\bash.exe' }
$candidates += Join-Path $env:ProgramFiles 'Git\bin\bash.exe'
$bash = $candidates | Where-Object { Test-Path $_ } | Select-Object -First 1
if (-not $bash) { Fail "Git for Windows' bash.exe not found" }

& $bash (Join-Path $root 'ci/nightly.sh') --preset windows-msvc @args
exit $LASTEXITCODE
