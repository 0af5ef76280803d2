"""Execution that survives a dying kernel and a notebook that runs too long.

nbgrader's Execute raises when the kernel dies (os._exit, a crash, the OOM killer), and the whole
notebook is lost. Here the cell that killed the kernel gets an error output saying so, every later
code cell gets one saying it was not run, and the cells before keep their outputs — and so their
points. The same happens to the cells left when the notebook's total time is used up.
"""
import secrets
import time

from nbclient.exceptions import DeadKernelError
from nbclient.client import NotebookClient
from nbformat import NotebookNode
from traitlets import Integer

from nbgrader.preprocessors import Execute


def error_output(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


class ResilientExecute(Execute):

    notebook_timeout = Integer(
        600, help="Seconds the whole notebook may run; cells left after that are not run."
    ).tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        NotebookClient.__init__(self, nb, km)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        deadline = time.monotonic() + self.notebook_timeout
        stopped = None
        try:
            with self.setup_kernel():
                info = self.wait_for_reply(self.kc.kernel_info())
                self.nb.metadata["language_info"] = info["content"]["language_info"]
                for index, cell in enumerate(self.nb.cells):
                    if stopped:
                        self.not_run(cell, stopped)
                    elif time.monotonic() > deadline:
                        stopped = f"блокнот исчерпал свои {self.notebook_timeout} с"
                        self.not_run(cell, stopped)
                    else:
                        try:
                            self.preprocess_cell(cell, resources, index)
                        except DeadKernelError:
                            stopped = f"ядро Python остановилось в ячейке {index + 1}"
                            cell.outputs.append(error_output(
                                "DeadKernelError", "Ядро Python остановилось в этой ячейке "
                                "(os._exit, сбой или нехватка памяти); следующие ячейки не выполнялись"))
        except DeadKernelError:
            pass  # shutting down a dead kernel may complain again; the outputs are already recorded
        self.set_widgets_metadata()
        return self.nb, self.resources

    def preprocess_cell(self, cell, resources, index):
        """Test cells must run to their last line: each gets a secret last line that prints a
        fresh token, removed again afterwards. A test that was blanked out, skipped, or whose
        error was hidden never prints it, and scores 0."""
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
            return super().preprocess_cell(cell, resources, index)
        source, token = cell.source, secrets.token_hex(16)
        cell.source = f"{source}\nprint({token!r})"
        try:
            return super().preprocess_cell(cell, resources, index)
        finally:
            cell.source = source
            finished = False
            for output in cell.outputs:
                if output.output_type == "stream" and token in output.text:
                    finished = True
                    output.text = output.text.replace(token + "\n", "").replace(token, "")
            cell.outputs = [o for o in cell.outputs if not (o.output_type == "stream" and not o.text)]
            if not finished and not any(o.output_type == "error" for o in cell.outputs):
                cell.outputs.append(error_output(
                    "TestDidNotFinish", "Тест не дошёл до конца: ячейка теста была изменена, пропущена "
                    "или её ошибка скрыта"))

    @staticmethod
    def not_run(cell, reason: str) -> None:
        if cell.cell_type == "code":
            cell.outputs = [error_output("NotRun", f"Ячейка не выполнялась: {reason}")]
