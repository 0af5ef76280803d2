"""The course's autograder: a trusted grading pipeline around nbgrader, for one notebook or a class.

Layers, each importing only the ones above it in this list (tests/test_layers.py holds it):

- `course`     the course: its notebooks, nbgrader's cell metadata, the names cells bind and read,
               the release (solutions/ → notebooks/), the student edition, example students;
- `wall`       the sandbox and the one narrow channel through it (its own layer: imports nothing
               else of the grader — only `bpe_course`, whose check helpers its agent applies inside
               the sandbox and whose folder the sandbox binds there);
- `notebook`   one notebook graded: sanitize → run the cells in the sandbox → evaluate each test
               in the grader → a result and its feedback page;
- `platforms`  a class's files in and out: folders and LMS zips, grades.csv, Moodle's and
               Canvas's files, the late policy, item analysis;
- `classroom`  a class graded: the workflow (zip → uploads), cache, worker pool, gradebook, output
               folder, shards, similarity;
- `server`     the course server: secret links, uploads, a queue of grading jobs, the pages;
- `cli`        `python -m autograder release | bundle | grade | merge | similarity | check | demo | serve |
               export | worker` on top.

Under them all, outside this package, `bpe_course` is the course's own code that the notebooks import
(checks, pictures, paths, vocabularies): it goes to students with the notebooks and into the sandbox, so
it imports nothing of `autograder` and nothing past the standard library but IPython's display and
widgets. `course`, `wall`, `notebook` and `cli` use it; `platforms`, `classroom` and `server` do not.
"""

import sys

# jsonschema (which nbformat and nbgrader import) loads rfc3987_syntax when it is installed (Jupyter's
# jupyter-events pulls it in), and that module builds 38 parsers as it is imported: about a second of
# CPU in every grader process and every `check`. No schema read here checks IRI formats, so the
# grader's processes go without it (None in sys.modules makes the import fail; jsonschema then
# leaves those formats unchecked). JupyterLab and the student's kernel are not affected.
sys.modules.setdefault("rfc3987_syntax", None)
