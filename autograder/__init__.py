"""The course's autograder: a trusted grading pipeline around nbgrader, for one notebook or a class.

One notebook (autograder.pipeline):
- `sanitize`   the submitted file → a notebook in the course's shape (`normalize`), the `guard`'s report;
- `plan`       which cells the graded checks depend on (the rest of the lesson is not run);
- `session`    the student's cells run in a sandboxed kernel (`sandbox`), with the grader's `agent` in it;
- `evaluate`   each test runs in the grader's process, against plain data (`remote`, `wire`);
- `gradebook`  scores into nbgrader's class gradebook (formgrader, nbgrader export);
- `feedback`   an HTML page built from the results.

A class: `batch` (worker processes, cache, interrupts), `worker`, `submissions` (folders and LMS
zips), `report` (grades.csv and friends), `course` (the course notebooks and the prepared nbgrader
course), `release` (solutions/ → notebooks/), `simulate` and `demo` (example students), and
`cli` (`python -m autograder release | grade | merge | check | demo`).
"""
