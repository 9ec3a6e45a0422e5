# The two commands of the README's quickstart:
#   make demo   install everything into .venv and run the demo on the embedded default (SQLite)
#   make test   install everything into .venv and run the whole test suite (SQLite + PostgreSQL)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test install lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev,postgres,server,mcp,import,integrations]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/salience demo

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests bench

bench: $(STAMP)
	$(BIN)/python bench/store_speed.py
	$(BIN)/python bench/embed_speed.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
