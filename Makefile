# `make test` and `make demo` work from a fresh clone: they create .venv from requirements.txt.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The contract test compares the check registry with CHECKS.md in the project's shared/ folder, named
# by QIVRORA_SHARED. Unless set, it is ../shared where that exists (CI's and a developer's checkout);
# a bare clone has none and the test is skipped, saying so.
QIVRORA_SHARED ?= $(if $(wildcard ../shared/CHECKS.md),$(abspath ../shared))
export QIVRORA_SHARED

.PHONY: test test-fast demo venv clean

$(BIN)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

venv: $(BIN)/.installed

test: venv
	$(BIN)/python -m pytest

# The edit-test loop: everything but the tests marked slow (Scrapyd, wheels, Chromium, redis-server,
# crawls of tens of MB), in under a minute. `make test` (and CI) runs them all.
test-fast: venv
	$(BIN)/python -m pytest -m "not slow"

demo: venv
	$(BIN)/python -m qivrora_spider.demo

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
