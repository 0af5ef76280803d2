"""Grading one notebook: a submitted file in, a `Result` (and its feedback page) out.

`sanitize` with `normalize` and `guard` (a submission → the course's shape, and what it changed for
review), `bounds` (the grader's own work on student values bounded), `evaluate` (each test runs in the
grader against plain data from the sandbox), `pipeline` (the stages for one notebook), `results` (what
grading says), `feedback` (the student's HTML page).

May import: `autograder.course`, `autograder.wall`, and `bpe_course` (its checks' failures, read in the grader).
"""
