"""The course's own answers, run in the grader: what a speed check times a student's call against.

A check that grades *how fast* a function is (07's `train_fast`, `encode_fast`) compares the
student's call with the course's solution on the same arguments, one right after the other:
`bpe_course.checks.speed_against_course`. The student's call is timed by the grader from outside
the kernel (`Remote.timed_calls`); the course's runs here, in the grader's process, built from the
source notebook in solutions/ — its given cells and solution cells, in the notebook's order — in a
namespace of its own, where nothing of the submission reaches it. Padding a call can then only
make the student slower, and a busy machine slows both sides of the ratio alike. While the course's call
is timed the sandbox is frozen (`CourseSolutions.frozen`, KernelSession.frozen), so a thread of the
student's thrashing memory meanwhile cannot slow the reference (issue 40 item 3).

A failure of this code is the course's, never the student's: a GraderFault (the notebook is
`error`, graded again next run).
"""

import contextlib
import io

from ..course.cells import grade_id, is_test
from ..course.plan import analyse, needed_cells
from .bounds import GraderFault, string_constants


class CourseSolutions:
    """name → the course's own function of that name: the source notebook's given and solution cells
    that it needs (autograder.course.plan, as for the grader's own plan of what runs) run on first
    use, in order, in one namespace of the grader's."""

    def __init__(self, course, builtins, budget, frozen=None):
        self.course, self.builtins, self.budget = course, builtins, budget
        self.freeze = frozen  # the session's `frozen`: the sandbox stopped while the course's call is timed
        cells = [c for c in course.source.cells if c.cell_type == "code" and grade_id(c) and not is_test(c)]
        self.ids, self.sources = [grade_id(c) for c in cells], [c.source for c in cells]
        self.codes = [analyse(source) for source in self.sources]
        self.namespace = {"__name__": "__course__", "__builtins__": builtins}
        self.done: set[int] = set()

    def frozen(self):
        """The student's sandbox stopped for the block (KernelSession.frozen): what a check times the course's
        call in (bpe_course.checks.reference_seconds), so nothing the sandbox does meanwhile slows it."""
        return self.freeze() if self.freeze is not None else contextlib.nullcontext()

    def run(self, name: str) -> None:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                for i in sorted(needed_cells(self.codes, set(), {name}) - self.done):
                    code = compile(self.sources[i], f"<{self.course.name}: course>", "exec")
                    self.budget.course_patterns |= string_constants(code)
                    exec(code, self.namespace)
                    self.done.add(i)
        except Exception as e:
            raise GraderFault(f"the course's own solutions of {self.course.name} did not run: {e!r}") from None

    def __call__(self, name: str):
        if not callable(self.namespace.get(name)):
            self.run(name)
        fn = self.namespace.get(name)
        if not callable(fn):
            raise GraderFault(f"{self.course.name} has no solution named {name!r} for a check to time against")
        return fn
