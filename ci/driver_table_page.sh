#!/usr/bin/env bash
# The driver table's page as docs/drivers.md shows it (docs/drivers-table.png): the store of the
# committed H200 and H100 nights and budgets with replayed releases (ci/driver_table_store.py,
# through the built pinbench), `pinreport drivers --replay --html`, and a screenshot of the page in
# headless Chromium (ci/setup-debian.sh --test installs it).
#
#   ci/driver_table_page.sh OUT [PNG]   (PINBENCH_EXE: the built pinbench; default build/ci-nogpu)
#
# OUT gets store/, drivers.html, drivers.json, drivers.md, drivers.txt; PNG (default
# OUT/drivers-table.png) the screenshot, 1760 px wide: the charts of every group at a glance.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: ci/driver_table_page.sh OUT [PNG]}
png=${2:-$out/drivers-table.png}
export PINBENCH_EXE=${PINBENCH_EXE:-$root/build/ci-nogpu/harness/pinbench}
python=${PYTHON:-$root/.venv/bin/python}
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/store"
"$python" "$root/ci/driver_table_store.py" "$out/store" --pinbench "$PINBENCH_EXE" >"$out/store.log"
# The page names the store it shows: "store", run from OUT.
(cd "$out" && "$python" -m pinreport drivers --store store --replay --html drivers.html --json drivers.json \
  --markdown drivers.md >drivers.txt)
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1760,1900 \
  --screenshot="$png" "file://$out/drivers.html" 2>/dev/null
echo "driver_table_page: $out/drivers.html, $png"
