"""A cell's outputs as the grader keeps them: rebuilt from what the sandbox sent, field by field,
and cut at a size, whatever the sandbox claims (`KernelSession` feeds it the output frames of a
cell; the sandbox's own `autograder.wall.host.CellOutputs` cuts too, but is not trusted to)."""

import json
import re

from nbformat import NotebookNode

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
        try:
            output = json.loads(data.decode("utf-8", "surrogatepass"))
        except (ValueError, RecursionError):
            return
        if isinstance(output, dict):
            self.add(output)

    def add(self, output: dict) -> None:
        kind = output.get("output_type")
        if kind == "clear":
            self.outputs, self.size, self.cut = [], 0, False
            return
        if self.size >= self.max_chars or kind == "cut":  # "cut": the sandbox left the rest out
            self.mark_cut()
            return
        out = checked_output(output, self.max_chars - self.size)
        if out is None:
            return
        left = self.max_chars - self.size
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


def checked_output(output: dict, left: int) -> NotebookNode | None:
    """An nbformat output node made of the fields an output of its kind has, each of its type (an
    error's text cut to `left` characters); None for anything else (data nested deeper than MAX_NESTING
    too: whatever writes or prints it later would hit Python's recursion limit)."""
    if not shallow(output):
        return None
    kind = output.get("output_type")
    if kind == "stream":
        name, text = output.get("name"), output.get("text")
        if name in ("stdout", "stderr") and isinstance(text, str):
            return NotebookNode(output_type="stream", name=name, text=text)
    elif kind == "error":
        ename, evalue = str(output.get("ename"))[:200], str(output.get("evalue"))[: min(left, 2000)]
        lines = output.get("traceback") if isinstance(output.get("traceback"), list) else []
        traceback, used = [], len(ename) + len(evalue)
        for line in map(str, lines):
            if used + len(line) > left:
                break
            traceback.append(line)
            used += len(line)
        return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=traceback)
    elif kind in ("display_data", "execute_result") and isinstance(output.get("data"), dict):
        data = {}
        for mime, value in output["data"].items():
            if isinstance(mime, str) and "/" in mime and len(mime) < 200:
                if isinstance(value, str) and len(value) <= MIME_VALUE_CHARS:
                    data[mime] = value
                elif re.fullmatch(r"application/(.*\+)?json", mime) and isinstance(value, (dict, list)):  # as nbformat
                    data[mime] = value
        metadata = output.get("metadata")
        metadata = metadata if isinstance(metadata, dict) and len(json.dumps(metadata)) < 10_000 else {}
        node = NotebookNode(output_type=kind, data=NotebookNode(data), metadata=NotebookNode(metadata))
        if kind == "execute_result":
            count = output.get("execution_count")
            valid = isinstance(count, int) and not isinstance(count, bool) and 0 <= count < 2**31  # nbformat: minimum 0
            node.execution_count = count if valid else None
        return node
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
