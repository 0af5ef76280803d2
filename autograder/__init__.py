"""The course's autograder: a trusted grading pipeline around nbgrader, for one notebook or a class.

One notebook (autograder.pipeline):
- `sanitize`   the submitted file → a notebook in the course's shape (`normalize`, `cells`), the `guard`'s report;
- `plan`       the names each cell binds and reads (a `demo` cell still runs when a cell that runs reads it);
- `session`    the student's cells run in a sandbox (`sandbox`): an IPython shell and the grader's `agent`
               behind one socket (`host`), outputs bounded (`cell_outputs`);
- `evaluate`   each test runs in the grader's process, against plain data (`remote`, `wire`);
- `gradebook`  scores into nbgrader's class gradebook (formgrader, nbgrader export);
- `feedback`   an HTML page built from the results.

A class: `batch` (the class grader: interrupts, shards), `pool` and `worker` (worker processes, one
notebook each, and their watchdog), `cache` (reruns grade only what is new), `outputs` (the output
folder; shards merged), `submissions` (folders and LMS zips), `report` (grades.csv and friends),
`course` (the course notebooks and the prepared nbgrader course), `release` (solutions/ →
notebooks/), `simulate` and `demo` (example students), and `cli` (`python -m autograder release |
bundle | grade | merge | check | demo`).
"""
import sys

# jsonschema (which nbformat and nbgrader import) loads rfc3987_syntax when it is installed (Jupyter's
# jupyter-events pulls it in), and that module builds 38 parsers as it is imported: about a second of
# CPU in every grader process and every `check`. No schema read here checks IRI formats, so the
# grader's processes go without it (None in sys.modules makes the import fail; jsonschema then
# leaves those formats unchecked). JupyterLab and the student's kernel are not affected.
sys.modules.setdefault("rfc3987_syntax", None)
