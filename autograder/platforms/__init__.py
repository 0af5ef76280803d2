"""A class's files in and out: students' folders and the learning platforms' zips, grades as files.

`submissions` (folders, Moodle's and Canvas's zips, nbgrader's zip_collect plugin), `report`
(grades.csv, the roster, the terminal table), `lms` (Moodle's worksheet and feedback zip), `late`
(the late policy), `analysis` (item analysis), `exports` (the platforms' import files, one plugin each).

May import: `autograder.course`, `autograder.notebook` (its results).
"""
