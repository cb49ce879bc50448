# `make test` and `make demo` work from a fresh clone: they create .venv from requirements.txt.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The contract test compares the check registry with CHECKS.md in the project's shared/ folder, named
# by QIVRORA_SHARED. Unless set, it is ../shared where that exists (CI's and a developer's checkout);
# a bare clone has none and the test is skipped, saying so.
QIVRORA_SHARED ?= $(if $(wildcard ../shared/CHECKS.md),$(abspath ../shared))
export QIVRORA_SHARED

.PHONY: test test-fast demo venv docs docs-venv screenshot clean

$(BIN)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

venv: $(BIN)/.installed

# The docs site's tools (docs/requirements.txt), over the runtime: the build imports the package. The
# suite's browser test of the site builds it too, so `make test` installs them.
$(BIN)/.docs-installed: docs/requirements.txt $(BIN)/.installed
	$(BIN)/pip install --quiet -r docs/requirements.txt
	touch $@

docs-venv: $(BIN)/.docs-installed

test: venv docs-venv
	$(BIN)/python -m pytest

# The edit-test loop: everything but the tests marked slow (Scrapyd, wheels, Chromium, redis-server,
# crawls of tens of MB, killed crawls, real timeouts, timings), spread over every core by pytest-xdist.
# `make test` (and CI) runs them all, one at a time: the slow ones time real recoveries.
test-fast: venv
	$(BIN)/python -m pytest -m "not slow" -n auto

demo: venv
	$(BIN)/python -m qivrora_spider.demo

# The docs site in docs/_build/html: a warning (a broken reference or link of a page) is an error,
# and every internal link of the built HTML must lead somewhere.
docs: docs-venv
	$(BIN)/python -m sphinx -W --keep-going -n -q -b html docs docs/_build/html
	$(BIN)/python docs/check_links.py docs/_build/html

# The picture of the demo's report that the docs show, taken anew (needs chromium).
screenshot: venv
	$(BIN)/python docs/screenshot.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis docs/_build
