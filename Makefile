# Kavet 'm eus — the two commands a fresh machine needs: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000
# The exact versions installed everywhere (here, CI, a teacher's laptop): refreshed on purpose
# with `make lock` (`make lock UPGRADE=1` moves every pin to the newest allowed version).
LOCK := requirements/lock.txt
RUFF_VERSION := 0.17.6
UV_VERSION := 0.9.5

.PHONY: demo test test-fast install install-test node browser messages migrate migrations-check serve \
	worker beat bench load lint lock clean screenshots

$(VENV)/bin/activate:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# From the lock only; `pip check` then fails when pyproject.toml asks for something the lock lacks.
# Done again only when the lock or pyproject.toml changed since (the stamp's date): a second
# `make test` (CI runs it on PostgreSQL, then on the embedded defaults) installs nothing twice.
INSTALLED := $(VENV)/.kavet-installed
install: $(INSTALLED)
$(INSTALLED): $(VENV)/bin/activate $(LOCK) pyproject.toml
	$(PIP) install --quiet -r $(LOCK)
	$(PIP) install --quiet --no-deps -e .
	$(PIP) check
	@touch $@

install-test: install node

# Browser-side test tools (axe-core), pinned in package-lock.json; installed again only when
# package.json or the lock changed since (npm writes node_modules/.package-lock.json).
NODE_INSTALLED := node_modules/.package-lock.json
node: $(NODE_INSTALLED)
$(NODE_INSTALLED): package.json $(wildcard package-lock.json)
	@command -v npm >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; fi; }
	@if [ -f package-lock.json ]; then npm ci --silent --no-audit --no-fund; \
	else npm install --silent --no-audit --no-fund; fi
	@touch $@

## make lock: re-resolve pyproject.toml (runtime + test) and package.json into the lock files.
lock: $(VENV)/bin/activate
	$(PIP) install --quiet uv==$(UV_VERSION)
	$(VENV)/bin/uv pip compile pyproject.toml --extra test --generate-hashes --python-version 3.11 \
	  --custom-compile-command "make lock" --quiet $(if $(UPGRADE),--upgrade) -o $(LOCK)
	npm install --package-lock-only --no-audit --no-fund --silent

# Translations are compiled, never committed as .mo files; a language is compiled again only
# when its .po file is newer than its .mo.
MO_FILES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/*.po))
messages: $(MO_FILES)
locale/%.mo: locale/%.po
	$(PY) manage.py compilemessages --ignore '.venv' --ignore node_modules -v 0 \
	  -l $(firstword $(subst /, ,$*))

migrate:
	$(PY) manage.py migrate --noinput -v 0

# Fails when a model change has no migration.
migrations-check: install
	$(PY) manage.py makemigrations --check --dry-run

## make demo: install, migrate, compile translations, load the demo school, start the server.
# The emails' links (the weekly report email, its unsubscribe link) point at this very server,
# whatever PORT it runs on, unless KAVET_SITE_URL is set already.
demo: export KAVET_SITE_URL ?= http://$(HOST):$(PORT)
demo: install messages migrate
	$(PY) manage.py demo_school
	@echo ""
	@echo "  Kavet 'm eus is running at http://$(HOST):$(PORT)/  (Ctrl-C stops it)"
	@echo ""
	DEBUG=$${DEBUG:-1} $(PY) manage.py runserver $(HOST):$(PORT)

# The real browser for the end-to-end tests: Debian's Chromium, never a downloaded build, and
# its headless shell (the same build without the browser's windows: what the tests run, at a
# fraction of the CPU per page, tests/e2e/conftest.py).
browser:
	@{ command -v chromium && command -v chromium-headless-shell; } >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-headless-shell fonts-dejavu-core gettext >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-headless-shell fonts-dejavu-core gettext >/dev/null; fi; }
	@command -v msgfmt >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gettext >/dev/null; \
	  else sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gettext >/dev/null; fi; }

## make test: install everything (Chromium included) and run the whole suite, on every core
# (pytest-xdist: a test database and a Redis database per worker, tests/parallel.py; the fault
# drills and the tests on the real Celery worker each run on one worker, in turn), the 20
# slowest tests named at the end. PYTEST_WORKERS=0 runs it in this one process.
# One worker more than the cores: the browser tests, the drills and the live servers wait on
# Chromium, timers and sockets for part of their time, and a third worker on two cores fills it
# (the whole suite on this 2-core box: 905 s with 2 workers, 728 s with 3, the CPU 94 % busy).
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
# (The browser tests lift the mark Playwright leaves on its event loop after each of them,
# tests/e2e/conftest.py: the table catalogue's runs in the same pytest as the async tests.)
test: browser install-test messages
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=20 $(PYTEST_ARGS)

## make test-fast: the inner loop, under a minute: the engine and every test that needs no
# database, browser or service (marked `unit` by tests/conftest.py), few Hypothesis examples.
# It installs nothing: run `make install` once first.
FAST_WORKERS ?= auto  # (no waiting there: one worker per core)
test-fast:
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-dev} $(PY) -m pytest -n $(FAST_WORKERS) -m unit \
	  --durations=10 -q $(PYTEST_ARGS)

serve:
	$(VENV)/bin/gunicorn -c gunicorn.conf.py kavet_site.wsgi
worker:
	$(VENV)/bin/celery -A kavet_site worker -l info
beat:
	$(VENV)/bin/celery -A kavet_site beat -l info

## make bench: every benchmark in its quick mode (BENCH_ARGS=--full for the real figures).
bench: install
	$(PY) benchmarks/run_all.py $(BENCH_ARGS)

## make load: a school's day on this box (issue 38): 10,000 tablets signing in, streaming and
## playing at 10-250 moves/s, one fresh window per rate (benchmarks/README.md; LOAD_ARGS=--quick).
load: install
	$(PY) benchmarks/school_load.py --sweep $(LOAD_ARGS)

## make screenshots: docs/screenshots/states/, every state of games.catalogue at 1024x768 and
## 768x1024 for every tablet (Playwright on Debian's chromium; the database is only read).
screenshots: install migrate
	$(PY) manage.py table_screenshots --out docs/screenshots/states

lint: $(VENV)/bin/activate
	@$(VENV)/bin/ruff --version 2>/dev/null | grep -qx "ruff $(RUFF_VERSION)" \
	  || $(PIP) install --quiet ruff==$(RUFF_VERSION)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

clean:
	rm -rf $(VENV) node_modules staticfiles db.sqlite3 db.sqlite3-wal db.sqlite3-shm
