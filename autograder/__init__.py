"""The course's autograder: nbgrader, driven for a whole class from one command.

- `course`       the course notebooks and the nbgrader course directory built from them;
- `release`      solutions/ → student notebooks in notebooks/;
- `submissions`  finding each student's notebooks in a submissions folder;
- `grading`      autograding one submission and reading its results from the gradebook;
- `report`       grades.csv, the grade table, feedback files;
- `feedback`     the nbgrader preprocessor that keeps hidden tests hidden in feedback;
- `simulate`     making submissions from the solutions (the demo class and the tests);
- `cli`          `python -m autograder release | grade | check | demo`.
"""
