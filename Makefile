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
SERIAL_FILES = $(shell grep -rl --include='test_*.py' 'mark.serial' tests)
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 4 -m "not serial"; a=$$?; \
	$(BIN)/python -m pytest -q -m serial $(SERIAL_FILES); b=$$?; \
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
