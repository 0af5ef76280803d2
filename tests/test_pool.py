"""The worker pool: its messages cross the pipe whole, and a worker that dies costs only its notebook.
(The watchdog that stops a stuck worker: tests/test_sandbox.py.)"""

import pickle
from multiprocessing.reduction import ForkingPickler

import nbformat

from autograder.classroom.pool import Lost, Workers
from autograder.classroom.worker import Reply, Task
from autograder.notebook import results
from autograder.notebook.results import GRADED, Result

NB = "01_hand_example"


def test_a_task_and_an_answer_cross_the_pipe_unchanged():
    """What multiprocessing does to them (ForkingPickler), with a lone surrogate and a notebook inside."""
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "print('\udcff')", outputs=[nbformat.v4.new_output("stream", text="вывод \udcff\n")]
            )
        ]
    )
    result = Result("ann", NB, 2, 17, GRADED, "failed: x", [results.TestResult("test_x", 0, 2, "ValueError: \udcff")])
    for message in (
        Task("ann", NB, "/x/01.ipynb", True, "key"),
        Reply(result, notebook, "<p>page</p>"),
        Reply(result, None, None, "ValueError: no page"),
    ):
        back = pickle.loads(ForkingPickler.dumps(message))
        assert back == message and type(back) is type(message)
    back = pickle.loads(ForkingPickler.dumps(Reply(result, notebook)))
    assert (
        isinstance(back.notebook, nbformat.NotebookNode) and back.notebook.cells[0].outputs[0].text == "вывод \udcff\n"
    )


def test_a_worker_that_dies_costs_its_task_and_a_new_one_takes_its_place(tmp_path):
    from autograder.classroom.batch import ClassGrader
    from autograder.course.course import PreparedCourse, use_venv_tools

    use_venv_tools()
    course = PreparedCourse(tmp_path / "work" / "course").prepare()
    workers = Workers(1, course.root, {})
    try:
        ((old, _),) = workers.slots.values()
        task = Task("ann", "99_no_such_notebook", str(tmp_path / "x.ipynb"), False)  # the worker raises on it
        workers.send(0, task)
        done = []
        while not done:
            done = workers.answers()
        ((back, answer),) = done
        assert back == task and isinstance(answer, Lost) and "exit code 1" in answer.reason
        ((new, _),) = workers.slots.values()
        assert not old.is_alive() and new.is_alive() and not workers.busy
    finally:
        workers.stop(now=True)
    result = ClassGrader(course, tmp_path / "work").receive(Task("ann", NB, "", False, "k"), answer, {})
    assert result.status == "error" and result.score == 0 and result.max_score == 17
    assert result.message.startswith("the grader's worker process stopped while grading this notebook (exit code 1)")
    assert result.message.endswith("; run the command again to retry it")
