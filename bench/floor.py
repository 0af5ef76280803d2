"""The floor of grading one solved notebook: the CPU its grade cannot do without (issue 42 item 7).

    python bench/floor.py NN_name        # run by bench/bench_grading.py, one process per notebook

Runs, in this one plain Python process (no kernel, no sandbox, no nbgrader, no gradebook), the code
cells the grader runs for the course's solution (`NotebookGrader.cells_to_run`: the solutions, the given
cells, the lesson cells the tests need) and every test cell with its hidden tests, in the notebook's
order, from the notebooks' folder. What that costs is the student's cells and the tests' own calls:
whatever the grader spends above it is the grader's overhead. A cell that fails is named on stderr
(the figure then is too low); the exit code is how many failed.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(name: str) -> int:
    import os
    import types

    import nbformat

    from autograder.course.cells import is_test
    from autograder.course.course import SOLUTIONS, CourseNotebook
    from autograder.notebook.pipeline import NotebookGrader

    os.environ.setdefault("MPLBACKEND", "Agg")
    course = CourseNotebook.load(name)
    cells = nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4).cells
    needed, last_test, _ = NotebookGrader().cells_to_run(course, cells)
    os.chdir(ROOT / "notebooks")
    main_module = types.ModuleType("__main__")  # as a kernel's: the checks find the student's names there
    sys.modules["__main__"] = main_module
    namespace, failed = main_module.__dict__, 0
    for i, cell in enumerate(cells[: last_test + 1]):
        if cell.cell_type != "code" or not (i in needed or is_test(cell)):
            continue
        source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        try:
            exec(compile(source, f"{name} cell {i}", "exec"), namespace)
        except Exception as e:  # a figure too low, said: the benchmark prints it
            failed += 1
            print(f"{name} cell {i}: {type(e).__name__}: {str(e)[:200]}", file=sys.stderr)
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
