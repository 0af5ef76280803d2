"""The course's autograder: a trusted grading pipeline around nbgrader, for one notebook or a class.

Layers, each importing only the ones above it in this list (tests/test_layers.py holds it):

- `course`     the course: its notebooks, nbgrader's cell metadata, the names cells bind and read,
               the release (solutions/ → notebooks/), the student edition, example students;
- `wall`       the sandbox and the one narrow channel through it (its own layer: imports neither
               `course` nor anything else of the grader);
- `notebook`   one notebook graded: sanitize → run the cells in the sandbox → evaluate each test
               in the grader → a result and its feedback page;
- `platforms`  a class's files in and out: folders and LMS zips, grades.csv, Moodle's and
               Canvas's files, the late policy, item analysis;
- `classroom`  a class graded: cache, worker pool, gradebook, output folder, shards, similarity;
- `cli`        `python -m autograder release | bundle | grade | merge | similarity | check | demo` on top.
"""

import sys

# jsonschema (which nbformat and nbgrader import) loads rfc3987_syntax when it is installed (Jupyter's
# jupyter-events pulls it in), and that module builds 38 parsers as it is imported: about a second of
# CPU in every grader process and every `check`. No schema read here checks IRI formats, so the
# grader's processes go without it (None in sys.modules makes the import fail; jsonschema then
# leaves those formats unchecked). JupyterLab and the student's kernel are not affected.
sys.modules.setdefault("rfc3987_syntax", None)
