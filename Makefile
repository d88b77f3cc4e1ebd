# cxarena: two commands on a fresh machine (`make tournament`, `make test`).
# The first target that needs Python creates .venv and installs the project
# (editable, with dev extras); the stamp file skips that until pyproject.toml changes.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: tournament quick test check bench clean vm-test

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

tournament: $(STAMP)
	$(BIN)/cxarena tournament configs/tournament.yaml

quick: $(STAMP)
	$(BIN)/cxarena tournament configs/quick.yaml

# the suite on four processes, then, alone, the few tests whose point is a bot's timing
# (`serial`, collected from the files that mark them); both parts always run, and either
# failing fails the target. Four on any machine: most tests wait for a bot, a server or a
# browser, and on two processes a 2-core machine sat idle a third of the time (docs/testing.md)
#
# Byte code: the suite starts some 2,600 Python processes, most of them bots, which never write
# byte code (the sandbox sets PYTHONDONTWRITEBYTECODE). `compileall` writes it for the project
# first (only what changed), and the test processes may write pytest's rewritten test modules,
# whatever the shell says: without both, each bot compiles its modules again (about 15 ms of
# CPU each) and each of the five test processes rewrites every test module (6 s). The caches
# go to the usual __pycache__ folders (ignored by git).
SERIAL_FILES = $(shell grep -rl --include='test_*.py' 'mark.serial' tests)
PYTEST = env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q
test: $(STAMP)
	$(BIN)/python -m compileall -q arena players
	$(PYTEST) -n 4 -m "not serial"; a=$$?; \
	$(PYTEST) -m serial $(SERIAL_FILES); b=$$?; \
	test $$a -eq 0 -a $$b -eq 0

check: $(STAMP)
	$(BIN)/ruff check arena players bench
	$(BIN)/mypy arena players bench

bench: $(STAMP)
	$(BIN)/python -m bench

# the containment tests in a cgroup v2 VM (QEMU TCG, virtme-ng): root, delegated user, no cgroup
vm-test: $(STAMP)
	$(PYTHON) .ci/vm/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
