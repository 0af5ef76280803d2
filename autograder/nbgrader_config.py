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

# ---- The course grader (autograder/): every setting is a documented traitlet of its class. ------
# Running the student's notebook (autograder/session.py): a cell that runs longer than this is
# interrupted and the notebook goes on with the next cell.
c.KernelSession.cell_timeout = 120
c.KernelSession.startup_timeout = 180  # a sandboxed kernel on a busy machine can take a while to start
# The whole notebook (autograder/pipeline.py): the cells and tests left after this are not run.
c.NotebookGrader.notebook_timeout = 600
c.NotebookGrader.run_only_needed = True  # skip demonstrations the graded checks do not depend on
# Calls the checks make into the student's kernel (autograder/evaluate.py): CPU seconds per call
# unless the check says otherwise (run(..., seconds=...)).
c.Evaluator.call_seconds = 10
# The walls (autograder/sandbox.py): bubblewrap where it works, else resource limits only.
c.Sandbox.mode = "auto"
c.Sandbox.memory_bytes = 4 * 2**30
c.Sandbox.cpu_seconds = 900
c.Sandbox.processes = 128
