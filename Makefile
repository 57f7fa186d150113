# The two commands of the README: `make run` and `make test`. Everything else supports them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The suite in three processes on two cores (pytest-xdist; a file's tests stay together: module
# fixtures; most of a test's time is waiting on servers, browsers and mail, so a third process
# takes the suite from 7:25-8:47 to about 6:50, docs/performance.md), then
# on its own: the fault tests of kills and failovers whose timing a second process beside them
# disturbs (QUIET_TESTS: a Sentinel failover once went unnoticed by every client; the killed
# gunicorn and Redis each load the machine for their 12-15 s and took 34-48 s beside two other
# processes). The Redis outage and the SMTP outage are bounded waits: they run in the parallel part.
# The schemathesis contract test runs in a pytest process of its own (under xdist only its first
# operation ran: its cases share one test id), started before the type check: it needs no quiet
# machine and takes about half a core, so it runs beside mypy, the JavaScript's checks and the
# parallel part; its output is printed once the parallel part is done, and a failure of either
# stops it (SIGINT: its servers are stopped by their fixtures). It keeps no .pytest_cache: the
# parallel part's record of failed tests (--lf) is written at the same time.
# --no-loadscope-reorder: the longest files go first (tests/conftest.py LONGEST_FIRST), not the
# files with most tests, so that no process is left alone with a long file at the end.
PARALLEL ?= -n 3 --dist loadfile --no-loadscope-reorder
# Every run prints its 25 longest tests: where the suite's time goes (issue 38), in CI's log too.
DURATIONS ?= --durations=25

.PHONY: run test test-setup js lint bench bench-load clean openapi system-deps test-system-deps translations

# `make run` installs what running needs; `make test` adds the test extras (Playwright,
# schemathesis, hypothesis, ruff...).
RUN_STAMP := $(VENV)/.installed-run

# Packages are installed by uv, which asks the index and downloads in parallel: a fresh venv
# with the test tools in about 35 s where pip took 2.5-5 minutes here, almost all of it waiting
# on the index one package at a time (docs/performance.md). The same versions either way (uv
# resolves as pip does, to the newest each range allows). Where uv cannot be installed or
# cannot reach the index (pip's own configuration, such as a local wheel folder, is not uv's),
# pip installs them.
INSTALL = scripts/venv-install $(VENV)

$(RUN_STAMP): pyproject.toml
	@echo "Setting up $(VENV) with what Kurier needs to run (first time: a minute or more)..."
	$(PYTHON) -m venv $(VENV)
	$(INSTALL) -e .
	touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP)
	@echo "Adding the test tools to $(VENV)..."
	$(INSTALL) -e '.[test]'
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

JS_CHECKS := npx --no-install eslint && node --test tests/js/*.test.js

js: $(JS_STAMP)
	$(JS_CHECKS)

# Where the checks that run beside others write their output (printed after them).
TEST_LOGS := .kurier/test-logs
QUIET_TESTS := tests/faults/test_worker_kills.py tests/faults/test_bank_deadline_kill.py \
	tests/faults/test_slow_webhook.py tests/faults/test_failover.py \
	tests/faults/test_gunicorn_kill.py tests/faults/test_redis_restart.py tests/test_image_check.py
# The parallel part leaves out the contract test and the quiet tests (each run on its own).
NOT_PARALLEL := --ignore=tests/test_contract.py $(addprefix --ignore=,$(QUIET_TESTS))
# pytest for a job in the background: a non-interactive shell starts it with SIGINT ignored, and
# this takes SIGINT again (Ctrl-C, or the recipe stopping it), so its fixtures stop its servers.
BACKGROUND_PYTEST := $(BIN)/python -c 'import signal, sys, pytest; \
	signal.signal(signal.SIGINT, signal.default_int_handler); sys.exit(pytest.main(sys.argv[1:]))'

# What the tests need, set up side by side: the venv, and the system packages then the
# JavaScript's (npm needs Node.js, which the system packages may bring). Each is mostly waiting
# on a download.
test-setup:
	@$(MAKE) --no-print-directory $(STAMP) & venv=$$!; \
	$(MAKE) --no-print-directory test-system-deps $(JS_STAMP) && deps=0 || deps=$$?; \
	wait $$venv && [ $$deps -eq 0 ]

# mypy (one core, about 20 s on a clean cache) runs beside the JavaScript's checks (`make js`)
# and a first collection of the tests, which leaves the compiled and assertion-rewritten test
# modules in __pycache__ (written even when PYTHONDONTWRITEBYTECODE is set), so that each xdist
# process then collects the suite in about 4 CPU-s instead of 10 (docs/performance.md).
test: export PYTHONDONTWRITEBYTECODE :=
test: test-setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@mkdir -p $(TEST_LOGS)
	@echo "$(BIN)/python -m pytest $(DURATIONS) tests/test_contract.py > $(TEST_LOGS)/contract.log &"
	@$(BACKGROUND_PYTEST) $(DURATIONS) -p no:cacheprovider tests/test_contract.py \
	> $(TEST_LOGS)/contract.log 2>&1 & \
	contract=$$!; trap 'kill -INT $$contract 2>/dev/null && wait $$contract' EXIT; \
	echo "$(BIN)/mypy > $(TEST_LOGS)/mypy.log & pytest --collect-only & $(JS_CHECKS)"; \
	$(BIN)/mypy > $(TEST_LOGS)/mypy.log 2>&1 & mypy=$$!; \
	$(BIN)/python -m pytest -q --collect-only $(NOT_PARALLEL) > $(TEST_LOGS)/collect.log 2>&1 & \
	collect=$$!; \
	$(JS_CHECKS) && js=0 || js=$$?; \
	wait $$mypy && typed=0 || typed=$$?; cat $(TEST_LOGS)/mypy.log; \
	wait $$collect || true; \
	[ $$js -eq 0 ] && [ $$typed -eq 0 ] || exit 1; \
	echo "$(BIN)/python -m pytest $(PARALLEL) $(DURATIONS) $(NOT_PARALLEL)"; \
	$(BIN)/python -m pytest $(PARALLEL) $(DURATIONS) $(NOT_PARALLEL) || exit 1; \
	wait $$contract && fuzzed=0 || fuzzed=$$?; trap - EXIT; \
	echo "tests/test_contract.py, run beside the above:"; cat $(TEST_LOGS)/contract.log; \
	exit $$fuzzed
	$(BIN)/python -m pytest $(DURATIONS) $(QUIET_TESTS)

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
