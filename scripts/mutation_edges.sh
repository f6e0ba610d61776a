#!/usr/bin/env bash
# Mutation testing of the edges (docs/MUTATION.md): the store, the router and the command
# line, each against the tests that exercise it. `make mutation` keeps its own default
# (the validator and the normalizer against tests/core); this script runs mutmut in a
# copy of the committed tree whose [tool.mutmut] names these modules and tests instead,
# so neither the tree nor pyproject.toml changes.
#
#   scripts/mutation_edges.sh                          every mutant (hours on 2 cores)
#   scripts/mutation_edges.sh 'zoea_tui.storage.preflight*' 'zoea_tui.cli_parsing*'
#
# One module against only the tests that exercise it (minutes, not hours: mutmut runs, for
# each mutant, the selected tests that called its function, so a narrow selection is fast):
#
#   MUTATE='zoea_tui/storage/search.py' TESTS='tests/storage/test_search.py' \
#       WORK=/tmp/zoea-mutation-search scripts/mutation_edges.sh
#
# MUTATE and TESTS are space-separated; TESTS may hold pytest options (-k "not http" is
# always added). Mutants on lines no selected test runs are not made
# (mutate_only_covered_lines), so "no tests" stays out of the figures.
#
# The copy is left in $WORK (default /tmp/zoea-mutation-edges): `mutmut results` and
# `mutmut show NAME` work there afterwards.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${BIN:-$ROOT/.venv/bin}"
WORK="${WORK:-/tmp/zoea-mutation-edges}"

rm -rf "$WORK"
mkdir -p "$WORK"
git -C "$ROOT" archive HEAD | tar -x -C "$WORK"
cd "$WORK"
MUTATE="${MUTATE:-zoea_tui/storage/* zoea_tui/game/router.py zoea_tui/cli.py zoea_tui/cli_arena.py zoea_tui/cli_parsing.py}"
TESTS="${TESTS:-tests/storage tests/game/test_router.py tests/game/test_router_contract.py tests/e2e/test_cli_in_process.py tests/e2e/test_cli.py tests/faults/test_cli_one_line.py tests/faults/test_cli_terminal_safe.py tests/faults/test_unusable_database.py tests/arena/test_arena_cli.py}"
MUTATE="$MUTATE" TESTS="$TESTS" COVERED="${COVERED:-true}" "$BIN/python" - <<'EOF'
import json
import os
import shlex
from pathlib import Path

path = Path("pyproject.toml")
text = path.read_text(encoding="utf-8")
start = text.index("[tool.mutmut]")
end = text.index("\n[", start + 1)
mutate = shlex.split(os.environ["MUTATE"])
tests = shlex.split(os.environ["TESTS"])
edges = f"""[tool.mutmut]
source_paths = ["zoea_tui"]
only_mutate = {json.dumps(mutate)}
# The in-process transport only: the same router code, half the time.
pytest_add_cli_args_test_selection = {json.dumps(tests + ["-k", "not http"])}
mutate_only_covered_lines = {os.environ["COVERED"]}
also_copy = ["config.example.toml", "store", "styles", "examples"]
"""
path.write_text(text[:start] + edges + text[end:], encoding="utf-8")
EOF
env -u PYTHONPATH nice -n 15 "$BIN/mutmut" run --max-children 2 "$@"
"$BIN/mutmut" export-cicd-stats > /dev/null && cat mutants/mutmut-cicd-stats.json
echo "Surviving mutants ('not checked' ones, outside the names given, left out):"
"$BIN/mutmut" results | grep -v ': not checked$' || echo "    none"
