"""The course: its notebooks and what a cell is to nbgrader — the bottom layer.

`cells` (nbgrader's cell metadata: grade id, solution, test), `plan` (the names each cell binds and
reads), `course` (the course's notebooks, nbgrader's config, the prepared nbgrader course), `release`
(solutions/ → notebooks/), `bundle` (the student edition), `simulate` and `demo` (example students).

May import: the standard library, nbgrader/nbformat and `bpe_course` — nothing else of `autograder`.
"""
