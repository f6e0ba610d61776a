# Every target creates .venv when it is missing (or when pyproject.toml changed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench screenshots release-check clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/zoea

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest
	bash scripts/release_check.sh

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python bench/compose.py
	$(BIN)/python bench/providers.py
	$(BIN)/python bench/autopilot.py
	$(BIN)/python bench/world.py
	$(BIN)/python bench/swarm.py

screenshots: $(STAMP)
	@echo "screenshots arrive with the TUI (issue 6)"

release-check: $(STAMP)
	bash scripts/release_check.sh

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
