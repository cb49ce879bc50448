# `make test` and `make demo` work from a fresh clone: they create .venv from requirements.txt.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: test demo venv clean

$(BIN)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

venv: $(BIN)/.installed

test: venv
	$(BIN)/python -m pytest

demo: venv
	$(BIN)/python -m qivrora_spider.demo

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
