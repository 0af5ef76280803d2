"""Which cells a grade needs: decided from the code, and in doubt the cell runs."""

from autograder.course.plan import analyse, free_names, needed_cells


def needed(sources, always=(), wanted=()):
    return needed_cells([analyse(s) for s in sources], set(always), set(wanted))


def test_a_demonstration_is_skipped_and_a_definition_is_kept():
    cells = [
        "import regex\nPATTERN = r'\\w+'",
        "def split(text):\n    return regex.findall(PATTERN, text)",
        "print(split('a b'))",
        "plot = [1, 2]\nprint(plot)",
    ]
    assert needed(cells, always={1}) == {0, 1}


def test_a_students_extra_cell_that_a_solution_reads_runs():
    cells = ["CACHE = {}", "def encode(t):\n    return CACHE.get(t)", "CACHE.update(a=1)", "show = encode('a')"]
    assert needed(cells, always={1}) == {0, 1, 2}


def test_a_call_that_may_change_a_needed_object_runs():
    cells = [
        "table = {}",
        "def fill(t):\n    t['x'] = 1",
        "fill(table)",
        "def read(t):\n    return len(t)",
        "read(table)",
        "ANSWER = table",
    ]
    assert needed(cells, always={5}) == {0, 1, 2, 5}


def test_classes_and_decorated_functions_are_definitions():
    cell = analyse(
        "import functools\nclass Tok(dict, metaclass=type):\n    size = LIMIT\n"
        "@functools.lru_cache(maxsize=SIZE)\ndef f(x, y=DEFAULT, *, z=KW):\n    return Tok()"
    )
    assert {"Tok", "f", "functools"} <= cell.definitions
    assert {"LIMIT", "SIZE", "DEFAULT", "KW"} <= cell.reads


def test_in_doubt_the_cell_runs():
    for doubtful in [
        "exec('x = 1')",
        "globals()['x'] = 1",
        "%time x = 1",
        "from os import *",
        "def f(:",
        "def g():\n    global x\n    x = 1",
        "setattr(obj, 'x', 1)",
    ]:
        assert analyse(doubtful).doubtful, doubtful
    assert needed(["x = 1", "exec('y = 2')", "print(3)"], always=set(), wanted={"z"}) == {1}


def test_the_names_a_test_reads():
    source = (
        "from bpe_course.checks import check\nwords = {'a': 1}\n"
        "def helper(x):\n    return merge(x, PAIR)\ncheck(helper(words) == ANSWER_1, 'msg')\n"
        "[count_pairs(w) for w in words]"
    )
    assert free_names(source) == {"merge", "PAIR", "ANSWER_1", "count_pairs"}


def test_a_loop_variable_is_not_taken_from_before():
    cell = analyse(
        "MEASURED = {}\nfor language, text in [('ru', held_out)]:\n"
        "    ids = encode(text)\n    MEASURED[language] = len(ids)\n"
        "with open(PATH) as f:\n    data = f.read()\n"
    )
    assert cell.needs == {"held_out", "encode", "PATH"}
    # what a loop may leave unset, or sets only after reading it, still comes from before
    assert analyse("for t in ts:\n    pass\nprint(t)").needs == {"ts", "t"}
    assert analyse("for t in ts:\n    print(last)\n    last = t").needs == {"ts", "last"}
    assert analyse("for t in ts:\n    if t:\n        y = 1\n    print(y)\nelse:\n    print(t)").needs == {
        "ts",
        "y",
        "t",
    }
    assert analyse("for x[i] in ts:\n    pass").needs == {"ts", "x", "i"}


def test_a_cell_that_does_not_compile_is_told_with_its_line():
    """What the grader tells a student whose solution cell Python could not read (the kernel ran none of it):
    the error, the line of the cell and its text; read from the source, never run."""
    from autograder.course.plan import syntax_problem

    assert syntax_problem("def f(x):\n    return x\n") is None
    missing = syntax_problem("def f(x):\n    for y in x\n        pass\n")
    assert missing.startswith("SyntaxError: expected ':'") and "строка 2 ячейки" in missing and "for y in x" in missing
    indented = syntax_problem("def f(x):\n    a = 1\n      b = 2\n")
    assert indented.startswith("IndentationError") and "строка 3 ячейки" in indented
    assert "строка 1 ячейки" in syntax_problem("return 1")  # found after the parser, by the compiler's tables
    assert syntax_problem("%time x = 1") is None  # IPython's syntax is the kernel's, not an error
