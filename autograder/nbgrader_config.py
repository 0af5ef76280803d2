# The course's configuration: nbgrader's settings (used when the student notebooks are generated)
# and the course grader's own (python -m autograder grade / check). The grader copies this file into
# the nbgrader course directory it prepares; instructors who drive nbgrader by hand can copy it too.
c = get_config()  # noqa: F821

c.CourseDirectory.course_id = "bpe-from-scratch"

# What a student sees in place of a solution: the function exists, says it is not written yet,
# and every test that calls it fails with that message.
c.ClearSolutions.code_stub = {
    "python": "# ВАШ КОД ЗДЕСЬ\nraise NotImplementedError('Эта часть ещё не реализована: замените raise своим кодом')"
}
c.ClearSolutions.text_stub = "ВАШ ОТВЕТ ЗДЕСЬ"

# The autograded notebooks in the course directory show instructors every test, hidden ones
# included. If feedback is made from them with nbgrader's own tools (formgrader's "Generate
# Feedback"), the hidden tests are cut out first. The course's feedback pages come from
# `python -m autograder grade` and are built from the results alone.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]

# formgrader shows submissions through nbconvert's HTMLExporter: sanitise what a student's Markdown
# and outputs could run in the instructor's browser (the grader also strips active outputs from the
# autograded notebooks, autograder/gradebook.py).
c.HTMLExporter.sanitize_html = True

# ---- The course grader (autograder/): every setting is a documented traitlet of its class -------
# (KernelSession, NotebookGrader, Evaluator, Sandbox), whose default is written there once and only
# there. Set here only what differs for this course, e.g. `c.KernelSession.cell_timeout = 300`;
# `python -m autograder settings` lists every setting with its effective value and its help.
