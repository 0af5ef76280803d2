"""A cell's outputs as the grader keeps them: rebuilt from what the sandbox sent, by each message's kind
and field by field, and cut at a size, whatever the sandbox claims (`KernelSession` feeds it the output
frames of a cell, each a message of `protocol.OUTPUTS`; the sandbox's own
`autograder.wall.host.CellOutputs` cuts too, but is not trusted to)."""

import json
import re

from nbformat import NotebookNode

from . import protocol

MIME_VALUE_CHARS = 2**24  # one value of a display output (an image is base64 text)
MAX_NESTING = 32  # JSON data and metadata: deeper ones fail the recursion of whatever writes them


class LimitedOutputs:
    """Outputs of one cell as nbformat nodes, from what the sandbox sent: checked field by field,
    streams merged, all of them (errors too) cut at `max_chars` together."""

    def __init__(self, max_chars: int):
        self.outputs, self.max_chars, self.size, self.cut = [], max_chars, 0, False

    def add_frame(self, data: bytes) -> None:
        """One output frame from the sandbox; anything that is not a well-formed output is left out."""
        if self.size >= self.max_chars:
            self.mark_cut()  # already cut: a flood costs no more than reading it
            return
        output = protocol.read_output(data)
        if output is not None:
            self.add(output)

    def add(self, output: protocol.Output | protocol.Error) -> None:
        match output:
            case protocol.ClearOutput():
                self.outputs, self.size, self.cut = [], 0, False
                return
            case protocol.OutputCut():  # the sandbox left the rest out
                self.mark_cut()
                return
        if self.size >= self.max_chars:
            self.mark_cut()
            return
        out = checked_output(output, self.max_chars - self.size)
        if out is None:
            return
        left = self.max_chars - self.size
        kind = out.output_type
        if kind == "stream":
            size = len(out.text)
        elif kind == "error":  # errors count too (25 tracebacks of 40 MB are a flood as well)
            size = len(out.ename) + len(out.evalue) + sum(map(len, out.traceback))
        else:
            size = sum(len(v) if isinstance(v, str) else len(json.dumps(v)) for v in out.data.values())
        last = self.outputs[-1] if self.outputs else None
        merged = kind == "stream" and last is not None and last.output_type == "stream" and last.name == out.name
        if not merged:
            size = max(size, 100)  # a flood of empty outputs is a flood too (streams in turn included)
        if size > left:
            if kind == "stream":
                out.text, size = out.text[:left], left
            elif kind != "error":
                self.mark_cut()
                return
        self.size += size
        if merged:
            last.text += out.text
        else:
            self.outputs.append(out)
        if self.size >= self.max_chars:
            self.mark_cut()

    def mark_cut(self) -> None:
        if not self.cut:
            self.cut = True
            note = f"\n… (вывод обрезан: больше {self.max_chars} символов)\n"
            self.outputs.append(NotebookNode(output_type="stream", name="stdout", text=note))


def checked_output(output: protocol.Output | protocol.Error, left: int) -> NotebookNode | None:
    """The nbformat output node of an output message (its fields' types are the protocol's; an error's text
    cut to `left` characters); None for one whose values nbformat does not take (data nested deeper than
    MAX_NESTING too: whatever writes or prints it later would hit Python's recursion limit)."""
    match output:
        case protocol.StreamText(name=name, text=text):
            return NotebookNode(output_type="stream", name=name, text=text)
        case protocol.Error(type=ename, message=evalue, traceback=lines):
            ename, evalue = ename[:200], evalue[: min(left, 2000)]
            traceback, used = [], len(ename) + len(evalue)
            for line in lines:
                if used + len(line) > left:
                    break
                traceback.append(line)
                used += len(line)
            return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=traceback)
        case protocol.DisplayData() | protocol.ExecuteResult():
            if not shallow(output.data) or not shallow(output.metadata):
                return None
            data = {}
            for mime, value in output.data.items():
                if "/" in mime and len(mime) < 200:
                    if isinstance(value, str) and len(value) <= MIME_VALUE_CHARS:
                        data[mime] = value
                    elif re.fullmatch(r"application/(.*\+)?json", mime) and isinstance(value, (dict, list)):  # nbformat
                        data[mime] = value
            metadata = output.metadata if len(json.dumps(output.metadata)) < 10_000 else {}
            if isinstance(output, protocol.DisplayData):
                return NotebookNode(
                    output_type="display_data", data=NotebookNode(data), metadata=NotebookNode(metadata)
                )
            count = output.execution_count
            valid = count is not None and 0 <= count < 2**31  # nbformat: minimum 0
            return NotebookNode(
                output_type="execute_result",
                data=NotebookNode(data),
                metadata=NotebookNode(metadata),
                execution_count=count if valid else None,
            )
    return None


def shallow(value) -> bool:
    """JSON data nested no deeper than MAX_NESTING (looked at without recursion)."""
    stack = [(value, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth >= MAX_NESTING:
                return False
            stack.extend((item, depth + 1) for item in (value.values() if isinstance(value, dict) else value))
    return True
