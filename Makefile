# The two commands of the README: `make run` and `make test`. Everything else supports them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The suite in three processes on two cores (pytest-xdist; a file's tests stay together: module
# fixtures; most of a test's time is waiting on servers, browsers and mail, so a third process
# takes the suite from 7:25-8:47 to about 6:50, docs/performance.md), then
# on its own: the schemathesis contract test (under xdist only its first operation ran: 10
# cases, all GET /healthz) and the fault tests (kills and failovers whose timing a second
# process beside them disturbs: a Sentinel failover once went unnoticed by every client).
# --no-loadscope-reorder: the longest files go first (tests/conftest.py LONGEST_FIRST), not the
# files with most tests, so that no process is left alone with a long file at the end.
PARALLEL ?= -n 3 --dist loadfile --no-loadscope-reorder
# Every run prints its 25 longest tests: where the suite's time goes (issue 38), in CI's log too.
DURATIONS ?= --durations=25

.PHONY: run test js lint bench bench-load clean openapi system-deps test-system-deps translations

# `make run` installs what running needs; `make test` adds the test extras (Playwright,
# schemathesis, hypothesis, ruff...). pip shows its progress: the first install takes minutes.
RUN_STAMP := $(VENV)/.installed-run

$(RUN_STAMP): pyproject.toml
	@echo "Setting up $(VENV) with what Kurier needs to run (first time: a few minutes)..."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --progress-bar on --upgrade pip
	$(BIN)/pip install --progress-bar on -e .
	touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP)
	@echo "Adding the test tools to $(VENV)..."
	$(BIN)/pip install --progress-bar on -e '.[test]'
	touch $(STAMP)

# System packages the wheels can't bring (fonts for the PNG pictures): installed when run as
# root on Debian/Ubuntu, otherwise the one command to run is printed (scripts/system-deps).
system-deps:
	@scripts/system-deps

test-system-deps:
	@scripts/system-deps --tests

run: $(RUN_STAMP) system-deps
	$(BIN)/kurier run

# The browser table's JavaScript (docs/web.md): ESLint and its unit tests (node --test), with
# the packages package-lock.json pins, installed again only when the lock changed.
JS_STAMP := node_modules/.package-lock.json

$(JS_STAMP): package-lock.json
	npm ci --no-audit --no-fund
	touch $(JS_STAMP)

js: $(JS_STAMP)
	npx --no-install eslint
	node --test tests/js/*.test.js

test: $(STAMP) test-system-deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(MAKE) --no-print-directory js
	$(BIN)/python -m pytest $(PARALLEL) $(DURATIONS) --ignore=tests/test_contract.py --ignore=tests/faults --ignore=tests/test_image_check.py
	$(BIN)/python -m pytest $(DURATIONS) tests/test_contract.py tests/faults tests/test_image_check.py

# Regenerate the committed OpenAPI document after an API change (a test checks it is current).
openapi: $(STAMP)
	$(BIN)/kurier openapi --output openapi/openapi.json

# Languages (docs/i18n.md): extract every marked string (babel.cfg) into the template, then
# merge it into each catalog: new strings arrive empty (tests/test_translations.py fails until
# they are translated), no source locations (they would change with every edit). The -k
# options are service.common.i18n.KEYWORDS. Needs the installed venv (make test or make run first).
POT := service/translations/messages.pot
# Every language with a catalog (service/translations/<lang>/).
CATALOG_LANGUAGES := $(notdir $(patsubst %/,%,$(dir $(wildcard service/translations/*/LC_MESSAGES))))

# pybabel through the venv's python (the script's #! line names the venv it was installed from).
PYBABEL := $(BIN)/python -m babel.messages.frontend

translations:
	PYTHONPATH=. $(PYBABEL) extract -F babel.cfg -k N_:1,1t -k N_:1,2,2t -k N_:1,2,3t \
		--no-wrap --sort-output --omit-header --no-location -o $(POT) .
	for lang in $(CATALOG_LANGUAGES); do \
		$(PYBABEL) update -i $(POT) -d service/translations -l $$lang --no-wrap \
			--ignore-obsolete --no-fuzzy-matching; \
	done

bench: $(STAMP)
	$(BIN)/python scripts/bench_engine.py

# Many concurrent Attila games through gunicorn, Redis and rq on loopback (docs/performance.md).
bench-load: $(STAMP)
	$(BIN)/python benchmarks/load.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .mypy_cache .kurier
