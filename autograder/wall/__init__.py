"""The wall: the sandbox the student's notebook runs in and the one narrow channel through it.

`sandbox` and `cgroup` (namespaces, limits, a cgroup and a uid of its own), `host` and `agent` (what
runs inside: an IPython shell for the cells, the agent for the grader's requests), `protocol` (the
typed messages of the frames), `wire` (the codec of the values inside them), `session` (the
grader's end: the sandbox's processes), `channel` (its socket's frames), `accounting` (its memory and CPU, read
from outside), `cell_outputs` (a cell's outputs, bounded, rebuilt field by field),
`remote` (a name in the notebook, called from the grader, answers checked).

May import: the standard library and `bpe_course` — nothing else of `autograder`. `host`, `agent`,
`protocol` and `wire` run inside the sandbox too, where only the standard library is certain to be there.
"""
