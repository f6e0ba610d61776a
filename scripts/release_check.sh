#!/usr/bin/env bash
# Build the wheel, install it into a fresh virtual environment outside the source tree,
# and run the installed `zoea` from a folder that cannot see the sources.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-python3}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/zoea-release.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

"$ROOT/.venv/bin/python" -m pip wheel --quiet --no-deps --wheel-dir "$WORK/dist" "$ROOT"
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install --quiet --upgrade pip
"$WORK/venv/bin/python" -m pip install --quiet "$WORK"/dist/*.whl

cd "$WORK"   # no source tree here: the installed package must stand alone
export ZOEA_DATA_DIR="$WORK/data"
"$WORK/venv/bin/zoea" --version
"$WORK/venv/bin/python" - <<'PY'
import zoea_tui, sys
assert "site-packages" in zoea_tui.__file__, zoea_tui.__file__
from zoea_tui.resources import data_dir
assert (data_dir("store") / "migrations").is_dir() and data_dir("styles").is_dir()
print("installed package:", zoea_tui.__file__)
PY
"$WORK/venv/bin/zoea" simulate --myses 2 --turns 3 --json > "$WORK/simulate.json"
"$WORK/venv/bin/python" - "$WORK/simulate.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["violations"] == 0 and report["requests"] >= 6, report
print("simulate from the wheel:", report["requests"], "requests,",
      report["score"]["total"]["ore_mined"], "ore mined")
PY
# The tmux smoke test, with the app started from the wheel's own venv.
cd "$ROOT"
ZOEA_SMOKE_COMMAND="$WORK/venv/bin/zoea --data-dir {data}" \
    "$ROOT/.venv/bin/python" -m pytest -q -p no:cacheprovider tests/ui/test_tmux_smoke.py
echo "release check passed"
