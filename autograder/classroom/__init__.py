"""Grading a class: every submitted notebook once, in parallel, resumable, into nbgrader's gradebook.

`batch` (the class grader: cache look-up → workers → gradebook and feedback; interrupts, shards),
`pool` and `worker` (worker processes, one notebook each, and their watchdog), `cache` (reruns grade
only what is new), `settings` (the settings that change a grade: the cache key), `gradebook`
(nbgrader's gradebook), `outputs` (the output folder; shards merged), `similarity` (whose own code
is alike: a list to look at, never a penalty).

May import: every layer below — `autograder.course`, `autograder.wall`, `autograder.notebook`,
`autograder.platforms`.
"""
