# Kavet 'm eus — the two commands a fresh machine needs: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: demo test install install-test browser messages migrate serve worker beat bench lint clean

$(VENV)/bin/activate:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

install: $(VENV)/bin/activate
	$(PIP) install --quiet -e .

install-test: $(VENV)/bin/activate
	$(PIP) install --quiet -e '.[test]'

# Translations are compiled, never committed as .mo files.
messages:
	$(PY) manage.py compilemessages --ignore '.venv' -v 0

migrate:
	$(PY) manage.py migrate --noinput -v 0

## make demo: install, migrate, compile translations, load the demo school, start the server.
demo: install messages migrate
	$(PY) manage.py demo_school
	@echo ""
	@echo "  Kavet 'm eus is running at http://$(HOST):$(PORT)/  (Ctrl-C stops it)"
	@echo ""
	DEBUG=$${DEBUG:-1} $(PY) manage.py runserver $(HOST):$(PORT)

# The real browser for the end-to-end tests: Debian's Chromium, never a downloaded build.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core gettext >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core gettext >/dev/null; fi; }
	@command -v msgfmt >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gettext >/dev/null; \
	  else sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gettext >/dev/null; fi; }

## make test: install everything (Chromium included) and run the whole suite.
test: browser install-test messages
	$(PY) -m pytest $(PYTEST_ARGS)

serve:
	$(VENV)/bin/gunicorn -c gunicorn.conf.py kavet_site.wsgi
worker:
	$(VENV)/bin/celery -A kavet_site worker -l info
beat:
	$(VENV)/bin/celery -A kavet_site beat -l info

bench:
	$(PY) benchmarks/run_all.py

lint:
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) staticfiles db.sqlite3
