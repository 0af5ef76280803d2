"""A stand-in for the sandboxed session, for the course's own tests: the same cells and the same agent
(autograder.wall.agent), run in the test's own process.

Not a sandbox: only for the course's solutions and catalogued mistakes (tests/catalogue.py), which it
makes provable in seconds. It answers what `autograder.wall.session.KernelSession` answers: a cell's
`CellRun`, an agent request's answer (a message of `autograder.wall.protocol`, through its bytes), a CPU clock.
"""

import builtins
import contextlib
import io
import signal
import sys
import time
import types

from nbformat import NotebookNode

from autograder.wall import agent as agent_module
from autograder.wall import protocol, wire
from autograder.wall.session import CellRun, error_output
from bpe_course import checks


class LocalSession:
    """The same cells and the same agent, in this process: for proving the graded checks fast.

    Cells run under a CPU-time limit; their output is captured. Not a sandbox: only for the
    course's own solutions and catalogued mistakes."""

    def __init__(self, cell_seconds: float = 60):
        self.main = types.ModuleType("__main__")  # the user namespace, as in ipykernel (issue 29 item 6)
        self.namespace = self.main.__dict__
        self.namespace["__builtins__"] = builtins
        self.agent = agent_module.Agent(self.namespace, wire)
        self.cell_seconds = cell_seconds
        self.dead = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def close(self) -> None:
        pass

    def run_cell(self, source: str) -> CellRun:
        from IPython.core.inputtransformer2 import TransformerManager

        run, out = CellRun(), io.StringIO()
        try:
            code = compile(TransformerManager().transform_cell(source), "<cell>", "exec")
            with (
                contextlib.redirect_stdout(out),
                contextlib.redirect_stderr(out),
                agent_module.cpu_limit(self.cell_seconds),
                self.as_main(),
            ):
                exec(code, self.namespace)
        except agent_module.CallTimedOut:
            run.error, run.timed_out = ("Timeout", f"{self.cell_seconds:g}"), self.cell_seconds
        except BaseException as e:
            run.error = (type(e).__name__, str(e))
        if out.getvalue():
            run.outputs.append(NotebookNode(output_type="stream", name="stdout", text=out.getvalue()))
        if run.error:
            run.outputs.append(error_output(*run.error))
        return run

    @staticmethod
    def cpu_clock() -> float:
        """This process's CPU time: a request's whole round trip is in it, as in a sandbox's clock."""
        return time.process_time()

    @contextlib.contextmanager
    def as_main(self):
        """`import __main__` gives the notebook's namespace while its code runs (IPython puts its user
        module into sys.modules the same way); the test process's own __main__ comes back after."""
        theirs = sys.modules.get("__main__")
        sys.modules["__main__"] = self.main
        try:
            yield
        finally:
            if theirs is None:
                sys.modules.pop("__main__", None)
            else:
                sys.modules["__main__"] = theirs

    def request(self, request: protocol.Request, timeout: float, feed=None) -> protocol.Answer:
        def exchange(message):  # a frame in the middle of a request, through its bytes as on the socket
            timers = {signal.SIGALRM, signal.SIGPROF}
            signal.pthread_sigmask(signal.SIG_BLOCK, timers)  # as the host: the grader's side is not timed
            try:
                sent = protocol.read(protocol.dumps(message))
                reply = feed(sent) if feed is not None and isinstance(sent, protocol.Yielded) else None
                if not getattr(message, "wants_line", False):
                    return None
                return protocol.loads(protocol.dumps(reply or protocol.NoMoreLines()), protocol.REPLIES)
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, timers)

        self.agent.exchange = exchange
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), self.as_main():
            return protocol.read(self.agent.serve(protocol.dumps(request)))

    @staticmethod
    def memory_mark():
        """This process's memory (the notebook's code runs in it): its high-water mark reset."""
        return checks.own_memory_mark()

    @staticmethod
    def memory_sample(mark):
        pass

    @staticmethod
    def memory_growth(mark):
        return checks.own_memory_growth(mark)


def remote_of(session, **settings):
    """A `Remote` on `session` under the Evaluator's settings (its defaults, changed by `settings`), as
    the grader makes it; without the grader's switch of checks.run to limits in the kernel."""
    from autograder.notebook.evaluate import Evaluator
    from autograder.wall.remote import Remote

    return Remote(session, **Evaluator(**settings).limits())
