"""Where a student's notebook runs while it is graded: a sandboxed kernel, or (for the course's own
tests) this process.

Both sessions do the same two things: run a cell of the notebook, and pass a request to the
agent next to the notebook's names (`autograder.agent`), returning its answer as a parsed dict.
`KernelSession` is the real thing — an IPython kernel started by `autograder.sandbox` and driven
over Jupyter's messaging protocol; `LocalSession` runs the same cells and the same agent in this
process, which makes the catalogue of student mistakes provable in seconds. Neither decides a
grade: answers are checked by `autograder.remote` and compared by `autograder.evaluate`.
"""
import builtins
import contextlib
import io
import json
import queue
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_client import KernelManager
from jupyter_client.kernelspec import KernelSpec
from nbformat import NotebookNode
from nbformat.v4 import output_from_msg
from traitlets import Float, Integer
from traitlets.config import LoggingConfigurable

from . import agent as agent_module
from . import wire
from .sandbox import Sandbox

AGENT_FILES = (("_bpe_wire", wire.__file__), ("_bpe_agent", agent_module.__file__))


class KernelDied(RuntimeError):
    """The kernel process is gone (os._exit, a crash, memory, the CPU-time limit)."""


class KernelStuck(RuntimeError):
    """The kernel neither finished nor answered an interrupt, and was stopped."""


def error_output(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


@dataclass
class CellRun:
    outputs: list = field(default_factory=list)
    error: tuple[str, str] | None = None      # (ename, evalue) of an exception in the cell


class LimitedOutputs:
    """Outputs of one cell as nbformat nodes, with streams merged and cut at `max_chars`."""

    def __init__(self, max_chars: int):
        self.outputs, self.max_chars, self.size = [], max_chars, 0

    def add(self, msg: dict) -> None:
        kind = msg["header"]["msg_type"]
        if kind == "clear_output":
            self.outputs, self.size = [], 0
            return
        if kind not in ("stream", "display_data", "execute_result", "error"):
            return
        if self.size >= self.max_chars and kind != "error":
            return                      # already cut: a flood costs no more than reading it
        out = output_from_msg(msg)
        size = len(out.text) if kind == "stream" else sum(len(str(v)) for v in out.get("data", {}).values())
        if self.size + size > self.max_chars:
            if kind == "stream" and self.size < self.max_chars:
                out.text = out.text[: self.max_chars - self.size]
            elif kind != "error":
                self.mark_cut()
                return
        self.size += size
        last = self.outputs[-1] if self.outputs else None
        if kind == "stream" and last is not None and last.output_type == "stream" and last.name == out.name:
            last.text += out.text
        else:
            self.outputs.append(out)
        if self.size >= self.max_chars:
            self.mark_cut()

    def mark_cut(self) -> None:
        note = f"\n… (вывод обрезан: больше {self.max_chars} символов)\n"
        if not any(o.output_type == "stream" and o.text.endswith(note) for o in self.outputs):
            self.outputs.append(NotebookNode(output_type="stream", name="stdout", text=note))


class KernelSession(LoggingConfigurable):
    """One notebook's sandboxed kernel, driven directly over the messaging protocol."""

    cell_timeout = Integer(120, help="Wall-clock seconds one notebook cell may run before it is interrupted."
                           ).tag(config=True)
    startup_timeout = Integer(180, help="Seconds the sandboxed kernel may take to start.").tag(config=True)
    interrupt_grace = Float(10, help="Seconds an interrupted cell or call may take to stop before the kernel "
                            "is killed.").tag(config=True)
    max_output_chars = Integer(200_000, help="Output kept per cell; the rest is cut with a note.").tag(config=True)
    max_answer_chars = Integer(16 * 2**20, help="The largest answer the agent may send for one request "
                               "(the course's largest honest answer, a big merge table, is about 2 MB)."
                               ).tag(config=True)

    def __init__(self, sandbox: Sandbox, slot: int = 0, **kwargs):
        super().__init__(**kwargs)
        self.sandbox, self.slot = sandbox, slot
        self.km = self.kc = None
        self.dead: str | None = None          # why the kernel is gone, once it is
        self.folder = Path(tempfile.mkdtemp(prefix="bpe-kernel-"))   # short: unix sockets ≤ 107 chars

    # -- life cycle ------------------------------------------------------------------------------
    def start(self) -> "KernelSession":
        workdir, sockets = self.folder / "work", self.folder / "ipc"
        workdir.mkdir()
        sockets.mkdir()
        argv = self.sandbox.kernel_argv(workdir, sockets, self.slot)
        self.km = SandboxKernelManager(spec=KernelSpec(argv=argv, language="python", display_name="sandbox",
                                                       interrupt_mode="message"),
                                       transport="ipc", ip=str(sockets / "kernel"),
                                       connection_file=str(self.folder / "connection.json"))
        log = self.folder / "kernel.log"
        with open(log, "wb") as out:   # the kernel's own messages: for a start that fails
            self.km.start_kernel(env=self.sandbox.launcher_env(), cwd=str(workdir), stdout=out, stderr=out,
                                 stdin=subprocess.DEVNULL)
        self.kc = self.km.client()
        self.kc.start_channels()
        try:
            self.kc.wait_for_ready(timeout=self.startup_timeout)
        except RuntimeError as e:
            said = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
            raise KernelDied(f"the sandboxed kernel did not start: {e}" + "".join("\n  " + l for l in said)) from None
        if self.sandbox.resolved_mode() == "bwrap":
            self.sandbox.lock(sockets)
        self.install_agent()
        return self

    def install_agent(self) -> None:
        modules = {name: Path(path).read_text(encoding="utf-8") for name, path in AGENT_FILES}
        code = ("def _bpe_install(sources):\n"
                "    import sys, types\n"
                "    for name, source in sources.items():\n"
                "        module = types.ModuleType(name)\n"
                "        sys.modules[name] = module\n"
                "        exec(compile(source, '<bpe-agent>', 'exec'), module.__dict__)\n"
                "    sys.modules['_bpe_agent'].install(get_ipython())\n"
                f"_bpe_install({modules!r})\n"
                "del _bpe_install\n")
        run = self.execute(code, silent=True, timeout=self.startup_timeout)
        if run.error:
            raise KernelDied(f"the grader's agent could not be installed: {run.error[0]}: {run.error[1]}")

    def close(self) -> None:
        try:
            if self.kc is not None:
                self.kc.stop_channels()
            if self.km is not None and self.km.has_kernel:
                self.km.shutdown_kernel(now=True)
        except Exception:
            pass
        finally:
            if self.km is not None:
                self.km.cleanup_resources()
            self.sandbox.remove(self.folder)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc):
        self.close()
        return False

    # -- what the grader asks --------------------------------------------------------------------
    def run_cell(self, source: str) -> CellRun:
        """Run one notebook cell; a cell that runs too long is interrupted and reported."""
        return self.execute(source, silent=False, timeout=self.cell_timeout)

    def request(self, request: dict, timeout: float) -> dict:
        """Pass one request to the agent; its parsed answer (a dict), or {"timeout": "wall"}."""
        text = json.dumps(request, ensure_ascii=False)
        code = f"__import__('sys').modules['_bpe_agent'].agent.serve({text!r})"
        answers = []
        run = self.execute(code, silent=True, timeout=timeout, answers=answers)
        if run.error and run.error[0] == "Timeout":
            return {"timeout": "wall"}
        if not answers:
            problem = f"{run.error[0]}: {run.error[1]}" if run.error else "ответа нет"
            return {"error": {"type": "AgentError", "message": f"(агент проверки в ядре не ответил: {problem})",
                              "where": ""}}
        if len(answers[0]) > self.max_answer_chars:
            return {"error": {"type": "AgentError", "message": "(ответ слишком большой)", "where": ""}}
        try:
            answer = json.loads(answers[0])
        except (ValueError, RecursionError):
            return {"error": {"type": "AgentError", "message": "(ответ — не данные)", "where": ""}}
        return answer if isinstance(answer, dict) else {"error": {"type": "AgentError",
                                                                  "message": "(ответ — не данные)", "where": ""}}

    # -- the protocol ----------------------------------------------------------------------------
    def execute(self, code: str, silent: bool, timeout: float, answers: list | None = None) -> CellRun:
        if self.dead:
            raise KernelDied(self.dead)
        msg_id = self.kc.execute(code, silent=silent, store_history=not silent, allow_stdin=False,
                                 stop_on_error=False)
        outputs = LimitedOutputs(self.max_output_chars)
        run = CellRun()
        deadline, interrupted = time.monotonic() + timeout, None
        while True:
            now = time.monotonic()
            if now > deadline:
                if interrupted is None:
                    self.km.interrupt_kernel()
                    interrupted, deadline = now, now + self.interrupt_grace
                else:
                    self.kill(f"ядро Python не остановилось после прерывания (лимит {timeout:g} с)")
                    raise KernelStuck(self.dead)
            try:
                msg = self.kc.get_iopub_msg(timeout=0.2)
            except queue.Empty:
                if not self.km.is_alive():
                    self.dead = "ядро Python остановилось (os._exit, сбой, нехватка памяти или процессорного времени)"
                    raise KernelDied(self.dead) from None
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["header"]["msg_type"], msg["content"]
            if kind == "status" and content["execution_state"] == "idle":
                break
            if answers is not None and kind == "display_data" and agent_module.MIME in content.get("data", {}):
                answers.append(content["data"][agent_module.MIME])
                continue
            if kind == "error":
                run.error = (content["ename"], content["evalue"])
            if not silent:
                outputs.add(msg)
        self.drain_shell()
        run.outputs = outputs.outputs
        if interrupted is not None:
            run.error = ("Timeout", f"{timeout:g}")
        return run

    def drain_shell(self) -> None:
        while True:
            try:
                self.kc.get_shell_msg(timeout=0)
            except queue.Empty:
                return

    def kill(self, reason: str) -> None:
        self.dead = reason
        try:
            self.km.shutdown_kernel(now=True)
        except Exception:
            pass


class SandboxKernelManager(KernelManager):
    """A KernelManager whose kernel command is given, not looked up among installed kernelspecs."""

    def __init__(self, spec: KernelSpec, **kwargs):
        super().__init__(**kwargs)
        self._sandbox_spec = spec

    @property
    def kernel_spec(self):
        return self._sandbox_spec


class LocalSession:
    """The same cells and the same agent, in this process: for proving the graded checks fast.

    Cells run under a CPU-time limit; their output is captured. Not a sandbox: only for the
    course's own solutions and catalogued mistakes."""

    def __init__(self, cell_seconds: float = 60):
        self.namespace = {"__name__": "__main__", "__builtins__": builtins}
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
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), \
                    agent_module.cpu_limit(self.cell_seconds):
                exec(code, self.namespace)
        except agent_module.CallTimedOut:
            run.error = ("Timeout", f"{self.cell_seconds:g}")
        except BaseException as e:
            run.error = (type(e).__name__, str(e))
        if out.getvalue():
            run.outputs.append(NotebookNode(output_type="stream", name="stdout", text=out.getvalue()))
        if run.error:
            run.outputs.append(error_output(*run.error))
        return run

    def request(self, request: dict, timeout: float) -> dict:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return json.loads(self.agent.serve(json.dumps(request, ensure_ascii=False)))
