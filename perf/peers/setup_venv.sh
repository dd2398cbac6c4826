#!/usr/bin/env bash
# Creates perf/.venv with the current pip releases of the Python peers (idempotent).
#   perf/peers/setup_venv.sh            # install what perf/peers/requirements.txt pins (or resolve today's if absent)
#   perf/peers/setup_venv.sh --refresh  # resolve the current releases again and rewrite requirements.txt
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/../.venv"
req="$here/requirements.txt"
py="${PYTHON:-python3}"
pkgs=(numpy "dask[array,dataframe,distributed]" h5py threadpoolctl psutil pandas polars duckdb pyarrow joblib matplotlib)

if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv"
fi
vpy="$venv/bin/python"
if [ "${1:-}" = "--refresh" ] || [ ! -s "$req" ]; then
  "$vpy" -m pip install -q --upgrade pip
  "$vpy" -m pip install -q --upgrade "${pkgs[@]}"
  # Pin what pip resolved today: the peers and everything they pulled in.
  "$vpy" -m pip freeze --exclude-editable | grep -v '^pip==' > "$req"
else
  # Fast path: nothing to do when every pin is already installed.
  if diff -q <(LC_ALL=C sort -f "$req") <("$vpy" -m pip freeze --exclude-editable | grep -v '^pip==' | LC_ALL=C sort -f) >/dev/null; then
    exit 0
  fi
  "$vpy" -m pip install -q -r "$req"
fi
