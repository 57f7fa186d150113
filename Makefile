# The two commands of the README: `make run` and `make test`. Everything else supports them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench bench-api clean openapi

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/kurier run

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

# Regenerate the committed OpenAPI document after an API change (a test checks it is current).
openapi: $(STAMP)
	$(BIN)/kurier openapi --output openapi/openapi.json

bench: $(STAMP)
	$(BIN)/python scripts/bench_engine.py

# API moves/s and Redis bytes per game on loopback (docs/operations.md, Capacity).
bench-api: $(STAMP)
	$(BIN)/python scripts/bench_api.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .kurier
