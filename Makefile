# `make run` and `make test` set up whatever is missing first (idempotent), then act.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# postgresql: the tests run the store and the engine on a PostgreSQL server of their own as well (tests/postgresql.py).
APT_PACKAGES := libenchant-2-2 hunspell-en-us hunspell-en-gb hunspell-fr hunspell-de-de-frami hunspell-tools \
  postgresql
# The browser the web pages' tests drive (tests/web): Debian's own Chromium, never a downloaded build, with
# the fonts it only recommends (apt installs no recommendations here).
APT_PACKAGES += chromium fonts-liberation
STAMP := $(VENV)/.installed
# Exact versions and hashes of every package, runtime, dev and build (`make lock`): what CI tested is
# what `make setup` installs. pyproject.toml keeps the ranges the lock is resolved from.
LOCK := requirements.lock
LOCK_TOOLS := .cache/lock-tools

# Compiled modules are kept (__pycache__, git-ignored) even where the environment asks Python not to write
# them: every test worker, bot and helper process would otherwise compile the project and rewrite the tests'
# asserts again (10 s of a worker's start instead of 3 s).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test check coverage setup system-packages lint clean bench i18n lock

run: setup
	$(BIN)/python -m bot

# The suite runs on one worker more than the cores (pytest-xdist): the e2e tests spend much of their time
# waiting on sockets and child processes, and a third worker keeps two cores busy (docs/testing.md).
WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
PYTEST := $(BIN)/python -m pytest -q -n $(WORKERS) --dist worksteal

test: setup
	$(BIN)/ruff check bot cogs tests bench
	$(BIN)/ruff format --check bot cogs tests bench
	$(BIN)/mypy
	$(PYTEST)

# The inner loop: ruff, mypy and every test that needs no bot against the loopback Discord, no bot process
# and no browser.
check: setup
	$(BIN)/ruff check bot cogs tests bench
	$(BIN)/ruff format --check bot cogs tests bench
	$(BIN)/mypy
	$(PYTEST) -m "not discord and not browser and not bot_process"

# The whole suite under coverage.py (slower: for the figure, not for every change); prints the total line
# coverage of bot/ and cogs/.
coverage: setup
	rm -rf .cache/coverage && mkdir -p .cache/coverage
	$(BIN)/python -m coverage run -m pytest -q -n $(WORKERS) --dist worksteal -p no:cacheprovider
	$(BIN)/python -m coverage combine -q
	$(BIN)/python -m coverage report --format=total

lint: setup
	$(BIN)/ruff check bot cogs tests bench
	$(BIN)/mypy

# Every benchmark runs and prints its figures; the target fails if any figure missed its target.
bench: setup
	@status=0; for f in bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || status=1; done; exit $$status

# The precomputed word tables (bot/words/precomputed.py): built once, rebuilt when a dictionary changes.
setup: system-packages $(STAMP)
	$(BIN)/python -m bot.words build

# After adding or renaming a text key in the code: extract every key, add the new ones (empty) to each
# language's catalogue, drop the unused ones and compile (bot/i18n/__main__.py); then fill in the texts.
i18n: setup
	$(BIN)/python -m bot.i18n

# apt only when a package is missing; through sudo when not root.
system-packages:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing system packages:$$missing"; \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# The project itself is installed without its dependencies (they are the lock's) and built with the
# lock's setuptools, so nothing unpinned is fetched.
$(STAMP): pyproject.toml $(LOCK)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	touch $(STAMP)

# Resolve the lock from pyproject.toml (and the build backend it needs), for every platform (markers) with
# the hashes of every file: the pins already there stay unless `make lock UPGRADE=1` asks for the newest
# versions pyproject.toml allows; then `make test` before committing it.
lock:
	test -x $(LOCK_TOOLS)/bin/uv || { $(PYTHON) -m venv $(LOCK_TOOLS) && $(LOCK_TOOLS)/bin/pip install -q uv; }
	echo 'setuptools>=68' | $(LOCK_TOOLS)/bin/uv pip compile -q pyproject.toml - --extra dev --universal \
	  --python-version 3.11 --generate-hashes $(if $(UPGRADE),--upgrade) --custom-compile-command "make lock" \
	  -o $(LOCK)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .cache
