# nbgrader configuration of the course. The autograder copies this file into every nbgrader
# course directory it builds; instructors who drive nbgrader by hand can copy it too.
c = get_config()  # noqa: F821

c.CourseDirectory.course_id = "bpe-from-scratch"

# What a student sees in place of a solution: the function exists, says it is not written yet,
# and every test that calls it fails with that message.
c.ClearSolutions.code_stub = {
    "python": "# ВАШ КОД ЗДЕСЬ\n"
              "raise NotImplementedError('Эта часть ещё не реализована: замените raise своим кодом')"
}
c.ClearSolutions.text_stub = "ВАШ ОТВЕТ ЗДЕСЬ"

# Execution while grading (autograder/execute.py): a cell that runs longer than `timeout` is
# interrupted and the notebook goes on with the next cell; when the kernel dies, or the notebook's
# total time is used up, the cells before keep their points and the rest are marked as not run.
c.Execute.timeout = 120
c.Execute.interrupt_on_timeout = True
c.Execute.startup_timeout = 180  # a sandboxed kernel on a busy machine can take a while to start
c.ResilientExecute.notebook_timeout = 600
c.Autograde.autograde_preprocessors = [
    "autograder.execute.ResilientExecute",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# A flood of output is cut to this many lines per output (and tracebacks to this many frames).
c.LimitOutput.max_lines = 200
c.LimitOutput.max_traceback = 50

# Feedback shows each test's name, points and failure message; the source of hidden tests and
# the lines of their tracebacks are removed (autograder/feedback.py).
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "autograder.feedback.HideHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
