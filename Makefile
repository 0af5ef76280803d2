# Everything runs in .venv, built with pip from requirements.txt on first use.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed

.PHONY: setup test demo release lab bench bench-grading clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt -e .
	touch $@

test: $(STAMP)     ## the project's tests (what CI runs)
	$(PY) -m pytest

demo: $(STAMP)     ## autograde the bundled example class into demo-output/
	$(PY) -m autograder demo --out demo-output

release: $(STAMP)  ## regenerate notebooks/ from solutions/
	$(PY) -m autograder release

bench: $(STAMP)    ## the course's trainers and encoders next to HF tokenizers and tiktoken
	$(PY) bench/bench_bpe.py

bench-grading: $(STAMP)  ## grading a synthetic class with 1 and 2 parallel jobs
	$(PY) bench/bench_grading.py --students 6 --notebooks 01_hand_example,02_byte_level_training

lab: $(STAMP)      ## JupyterLab on the student notebooks
	$(VENV)/bin/jupyter lab notebooks/

clean:
	rm -rf demo-output grades .pytest_cache
