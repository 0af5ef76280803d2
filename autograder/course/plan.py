"""Which cells a grade needs, decided from the code: the names each cell defines and reads.

A graded check reads some names of the notebook (the student's functions, `ANSWER_1`, …). The
cells that must run before it are the ones that bind those names, and — recursively — the
cells that bind what those read, including names read inside function bodies. The caller says
which cells always run (autograder.notebook.pipeline: every cell but the lesson's demonstrations,
tagged `demo` and left unchanged); each of the others is skipped unless it binds or may change a
name that is needed.

"May change" is decided conservatively. A cell changes a name it assigns, subscripts or
attributes into (`cache[k] = v`, `obj.x = 1`), calls a mutating or unknown method on
(`cache.update(...)`, `tok.train(...)`; `merges.items()` is a read), or passes to a call that may
change its argument. A call may change its argument unless the callee is a builtin that never
does (`len`, `sorted`, `print`, …), a method or a module's function (`enc.encode(text)`,
`regex.findall(p, text)`; not `random.shuffle` or `heapq.heappush`), a function imported from
a library, or a function of the notebook whose body leaves that parameter alone by the same
rules. Parts of a name (`x[k]`, `x.y`) passed to a call count only for the known mutators.
Names bound only by imports, `def`, `class` and immutable literals (`PATTERN = r"..."`) cannot change in place at all. A cell whose effect cannot be read
from its code — `global` statements, `exec`/`eval`/`globals()`/`setattr`, IPython magics,
`import *`, a syntax error — always runs. When in doubt, the cell runs.
"""  # noqa: E501

import ast
import builtins
import functools
import symtable
from dataclasses import dataclass, field

BUILTIN_NAMES = frozenset(dir(builtins))
DOUBTFUL_CALLS = {
    "exec",
    "eval",
    "globals",
    "locals",
    "vars",
    "setattr",
    "delattr",
    "__import__",
    "get_ipython",
    "compile",
    "execfile",
}
DOUBTFUL_METHODS = {"run_line_magic", "run_cell_magic", "import_module", "system", "getoutput", "__setattr__"}
MUTATING_METHODS = {
    "seed",
    "setrecursionlimit",
    "append",
    "extend",
    "insert",
    "pop",
    "popitem",
    "clear",
    "update",
    "setdefault",
    "remove",
    "add",
    "discard",
    "sort",
    "reverse",
    "__setitem__",
    "__delitem__",
    "write",
    "put",
    "send",
    "throw",
    "close",
    "intersection_update",
    "difference_update",
    "symmetric_difference_update",
    "appendleft",
    "extendleft",
    "popleft",
    "rotate",
    "subtract",
}
READING_METHODS = {
    "items",
    "keys",
    "values",
    "get",
    "copy",
    "count",
    "index",
    "encode",
    "decode",
    "split",
    "rsplit",
    "splitlines",
    "join",
    "strip",
    "lstrip",
    "rstrip",
    "startswith",
    "endswith",
    "find",
    "rfind",
    "replace",
    "lower",
    "upper",
    "title",
    "format",
    "isdigit",
    "isalpha",
    "isspace",
    "isalnum",
    "most_common",
    "findall",
    "finditer",
    "match",
    "search",
    "fullmatch",
    "sub",
    "hex",
    "union",
    "intersection",
    "difference",
    "issubset",
    "issuperset",
    "total",
    "elements",
    "bit_length",
    "to_bytes",
    "casefold",
    "partition",
    "rpartition",
    "ljust",
    "rjust",
    "center",
    "zfill",
    "expandtabs",
    "translate",
    "maketrans",
    "isupper",
    "islower",
    "isprintable",
    "isdecimal",
    "isnumeric",
    "isidentifier",
    "fromkeys",
    "is_integer",
    "as_integer_ratio",
}
PURE_BUILTINS = {
    "len",
    "print",
    "sorted",
    "list",
    "tuple",
    "dict",
    "set",
    "frozenset",
    "str",
    "repr",
    "int",
    "float",
    "bytes",
    "bytearray",
    "enumerate",
    "zip",
    "range",
    "sum",
    "min",
    "max",
    "any",
    "all",
    "isinstance",
    "issubclass",
    "type",
    "hash",
    "id",
    "abs",
    "round",
    "divmod",
    "reversed",
    "format",
    "chr",
    "ord",
    "hex",
    "bin",
    "oct",
    "bool",
    "callable",
    "iter",
    "ascii",
    "pow",
    "memoryview",
    "complex",
    "slice",
    "hasattr",
    "getattr",
    "display",
    "map",
    "filter",
}
MUTATING_FUNCTIONS = {
    "shuffle",
    "heappush",
    "heappop",
    "heapify",
    "heapreplace",
    "heappushpop",
    "insort",
    "insort_left",
    "insort_right",
    "setitem",
    "delitem",
}


@dataclass
class CellCode:
    """What one code cell does to the notebook's names."""

    binds: set = field(default_factory=set)  # names it (re)binds at the top level
    reads: set = field(default_factory=set)  # global names it or its functions read
    needs: set = field(default_factory=set)  # the reads of values from before it (not set by itself first)
    changes: list = field(default_factory=list)  # (name, how): objects it may change in place
    definitions: set = field(default_factory=set)  # names bound only by import / def / class / a literal
    imports: set = field(default_factory=set)  # names bound by import
    functions: dict = field(default_factory=dict)  # name → Function, for the functions it defines
    doubtful: bool = False  # its effect cannot be read from the code


@dataclass
class Function:
    params: list  # positional parameter names, in order
    open_ended: bool  # *args or **kwargs: any argument may go anywhere
    changes: list  # (param, how) it may change, `how` as for cells


def python_source(source: str) -> str:
    """IPython syntax (magics, `!cmd`) turned into Python, as the kernel would run it."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def syntax_problem(source: str) -> str | None:
    """Why a cell's code does not compile, as its author reads it (Russian): the error, the line of the cell
    it is on and that line's text; None when it compiles (or cannot be read for another reason). The
    kernel said that it did not: the grader compiles it again only to say where, and never runs it."""
    try:
        compile(python_source(source), "<cell>", "exec", dont_inherit=True)  # compiled only: nothing of it runs
    except SyntaxError as e:
        where = f"строка {e.lineno} ячейки" if e.lineno else "ячейка"
        text = (e.text or "").strip()
        shown = f": {text[:120]!r}" if text else ""
        return f"{type(e).__name__}: {e.msg} ({where}{shown})"
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


@functools.lru_cache(maxsize=4096)
def analyse(source: str) -> CellCode:
    """What a cell's code does to the notebook's names. The answer is shared by every caller with the
    same source (a class's notebooks repeat the course's cells): read it, never change it."""
    try:
        code = python_source(source)
        tree = ast.parse(code)
        table = symtable.symtable(code, "<cell>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # let the kernel say what is wrong
        return CellCode(doubtful=True)
    cell = CellCode()
    top_level_binding(tree, cell)
    global_reads(table, cell)
    cell.needs = reads_from_before(tree, table)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            cell.doubtful = True
        elif isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            cell.doubtful = True
        elif isinstance(node, ast.Call) and (
            isinstance(node.func, ast.Name)
            and node.func.id in DOUBTFUL_CALLS
            or isinstance(node.func, ast.Attribute)
            and node.func.attr in DOUBTFUL_METHODS
        ):
            cell.doubtful = True
    cell.changes = in_place_changes(tree.body)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            params = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
            cell.functions[node.name] = Function(
                params, bool(args.vararg or args.kwarg), [c for c in in_place_changes(node.body) if c[0] in params]
            )
    return cell


def top_level_binding(tree: ast.Module, cell: CellCode) -> None:
    """Names bound by the cell's own statements (not inside its functions)."""
    definitions, others = set(), set()

    def visit(node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            definitions.add(node.name)
            if isinstance(node, ast.ClassDef):  # what runs when it is defined
                evaluated = [*node.bases, *(k.value for k in node.keywords)]
            else:
                evaluated = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            for sub in [*node.decorator_list, *evaluated]:
                visit(sub)
            return
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                name = (alias.asname or alias.name).split(".")[0]
                definitions.add(name)
                cell.imports.add(name)
            return
        if (
            isinstance(node, ast.Assign)
            and immutable(node.value)
            and all(isinstance(t, ast.Name) for t in node.targets)
        ):
            definitions.update(t.id for t in node.targets)  # NAME = "a literal": it cannot change in place
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            others.add(node.id)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return  # their variables are their own (the walrus aside, which is rare enough to ignore)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for statement in tree.body:
        visit(statement)
    cell.binds = definitions | others
    cell.definitions = definitions - others


def immutable(node) -> bool:
    """A literal whose value cannot be changed in place: a string, a number, a tuple of those…"""
    if isinstance(node, (ast.Constant, ast.JoinedStr)):
        return True
    if isinstance(node, ast.Tuple):
        return all(immutable(e) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return immutable(node.left) and immutable(node.right)
    if isinstance(node, ast.UnaryOp):
        return immutable(node.operand)
    return False


def global_reads(table: symtable.SymbolTable, cell: CellCode) -> None:
    for symbol in table.get_symbols():  # the cell's own level: any name it uses
        if symbol.is_referenced() and symbol.get_name() not in BUILTIN_NAMES:
            cell.reads.add(symbol.get_name())
    stack = list(table.get_children())
    while stack:  # functions, classes, comprehensions inside it
        scope = stack.pop()
        for symbol in scope.get_symbols():
            if symbol.is_global() and symbol.get_name() not in BUILTIN_NAMES:
                cell.reads.add(symbol.get_name())
        stack.extend(scope.get_children())


NESTED = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def reads_from_before(tree: ast.Module, table: symtable.SymbolTable) -> set:
    """Names whose value the cell takes from earlier cells: read by a statement (or by a function,
    class or comprehension in it) before an earlier statement of the cell surely set them. Only plain
    assignments, imports and definitions count as surely setting a name; in a block (a loop's body,
    an `if` branch) they count for the rest of that block, and a `for` or `with` target is set for
    its body: `for text in texts: print(text)` takes nothing but `texts` from before."""
    nested = []  # (first line, global names read) of each inner scope
    stack = list(table.get_children())
    while stack:
        scope = stack.pop()
        nested.append(
            (
                scope.get_lineno(),
                {s.get_name() for s in scope.get_symbols() if s.is_global() and s.get_name() not in BUILTIN_NAMES},
            )
        )
        stack.extend(scope.get_children())
    reads = set()

    def visit(node, bound):
        if (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and node.id not in BUILTIN_NAMES
            and node.id not in bound
        ):
            reads.add(node.id)
        if isinstance(node, NESTED):  # their bodies are read below, through the symbol table
            for sub in evaluated_where_defined(node):
                visit(sub, bound)
            return
        if isinstance(node, (ast.For, ast.AsyncFor)):
            visit(node.iter, bound)
            visit(node.target, bound)  # `x[i]` as a target reads x and i
            block(node.body, bound | target_names(node.target))
            block(node.orelse, bound)  # after zero rounds the target keeps its old value
            return
        if isinstance(node, (ast.With, ast.AsyncWith)):
            inner = set(bound)
            for item in node.items:
                visit(item.context_expr, inner)
                if item.optional_vars is not None:
                    visit(item.optional_vars, inner)
                    inner |= target_names(item.optional_vars)
            block(node.body, inner)
            return
        for _name, value in ast.iter_fields(node):
            if isinstance(value, list) and value and all(isinstance(v, ast.stmt) for v in value):
                block(value, bound)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        visit(item, bound)
            elif isinstance(value, ast.AST):
                visit(value, bound)

    def block(statements, bound):
        bound = set(bound)
        for statement in statements:
            visit(statement, bound)
            bound |= surely_bound(statement)

    surely_set, needs = set(), set()
    for statement in tree.body:
        reads.clear()
        visit(statement, surely_set)
        last = getattr(statement, "end_lineno", statement.lineno)
        for line, names in nested:
            if statement.lineno <= line <= last:
                reads.update(names - surely_set)
        needs |= reads
        surely_set |= surely_bound(statement)
    return needs


def target_names(target) -> set:
    """The plain names an assignment target binds (`a`, `a, (b, *c)`; not `x[i]` or `x.y`)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(target_names(e) for e in target.elts))
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    return set()


def evaluated_where_defined(node) -> list:
    """The parts of a function, lambda, class or comprehension that run where it is written."""
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return [node.generators[0].iter]
    args = node.args
    parts = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    parts += [a.annotation for a in [*args.posonlyargs, *args.args, *args.kwonlyargs] if a.annotation is not None]
    if not isinstance(node, ast.Lambda):
        parts += [*node.decorator_list, *([node.returns] if node.returns else [])]
    return parts


def surely_bound(statement) -> set:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in statement.names}
    targets = (
        statement.targets
        if isinstance(statement, ast.Assign)
        else [statement.target]
        if isinstance(statement, ast.AnnAssign) and statement.value is not None
        else []
    )
    names = set()
    for target in targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name) and isinstance(target, (ast.Name, ast.Tuple, ast.List)):
                names.add(node.id)
    return names


def root_name(node) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def in_place_changes(body: list) -> list:
    """(name, how) for each object these statements may change in place, not looking into the
    functions they define. `how` is "store" or "method" (certain), or ("call", callee, position)
    for a name passed to a call, decided later with the whole notebook in view."""
    changes = []

    def callee(func):
        if isinstance(func, ast.Name):
            return ("name", func.id)
        if isinstance(func, ast.Attribute):
            return ("attr", root_name(func.value), func.attr)
        return ("other",)

    def visit(node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            changes.append((root_name(node), "store"))
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr not in READING_METHODS:
                changes.append(
                    (
                        root_name(node.func.value),
                        "method" if node.func.attr in MUTATING_METHODS else ("call", ("self",), 0),
                    )
                )
            arguments = [*enumerate(node.args), *((k.arg, k.value) for k in node.keywords)]
            for position, arg in arguments:
                # a name passed as it is; a part of it (x[k], x.y) only to a known mutator
                name = (
                    arg.id
                    if isinstance(arg, ast.Name)
                    else arg.value.id
                    if isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Name)
                    else None
                )
                if name is None and call_name(node.func) in MUTATING_FUNCTIONS:
                    name = root_name(arg)
                if name:
                    changes.append((name, ("call", callee(node.func), position)))
        for child in ast.iter_child_nodes(node):
            visit(child)

    for statement in body:
        visit(statement)
    return [c for c in changes if c[0]]


def call_name(func) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def free_names(source: str) -> set[str]:
    """The notebook names a test cell reads: global reads that the cell does not bind itself."""
    cell = analyse(source)
    return cell.reads - cell.binds


class Notebook:
    """The cells' facts together: which names are fixed, which functions change their arguments."""

    def __init__(self, cells: list[CellCode]):
        self.cells = cells
        self.fixed, self.imported, self.functions = {}, set(), {}
        for cell in cells:
            for name in cell.binds:
                self.fixed[name] = self.fixed.get(name, True) and name in cell.definitions
            self.imported |= cell.imports
            for name, function in cell.functions.items():
                self.functions.setdefault(name, []).append(function)
        for name in list(self.functions):  # a name also bound otherwise is not surely this function
            if not self.fixed.get(name, False):
                del self.functions[name]
        self.changing = {}  # function name → parameters it may change (a fixed point)
        settled = False
        while not settled:
            settled = True
            for name, definitions in self.functions.items():
                params = {p for f in definitions for p, how in f.changes if self.may_change(how)}
                if params - self.changing.get(name, set()):
                    self.changing[name] = self.changing.get(name, set()) | params
                    settled = False

    def may_change(self, how) -> bool:
        if how in ("store", "method"):
            return True
        _, target, position = how
        if target[0] == "name":
            name = target[1]
            if name in MUTATING_FUNCTIONS:
                return True
            if name in BUILTIN_NAMES and name in PURE_BUILTINS and name not in self.fixed:
                return False
            if name in self.imported and self.fixed.get(name, False):
                return False  # a function imported from a library (the course's helpers among them)
            if name in self.functions:
                return any(
                    f.open_ended or self.param(f, position) in self.changing.get(name, set())
                    for f in self.functions[name]
                )
            return True
        if target[0] == "attr":  # a module's function or an object's method: they change what they
            return target[2] in MUTATING_FUNCTIONS  # are called on, not their arguments (shuffle aside)
        return True

    @staticmethod
    def param(function: Function, position):
        if isinstance(position, int):
            return function.params[position] if position < len(function.params) else None
        return position

    def touched(self, cell: CellCode) -> set:
        """Names whose value the cell may set or change."""
        names = set(cell.binds)
        for name, how in cell.changes:
            if not self.fixed.get(name, False) and self.may_change(how):
                names.add(name)
        return names


def needed_cells(cells: list[CellCode], always: set[int], wanted: set[str]) -> set[int]:
    """Indexes of the cells that must run: `always`, the doubtful ones, and every cell that binds
    or may change a name that is wanted or read by a needed cell (to a fixed point)."""
    notebook = Notebook(cells)
    touched = [notebook.touched(c) for c in cells]
    needed = set(always) | {i for i, c in enumerate(cells) if c.doubtful}
    names = set(wanted)
    for i in needed:
        names |= cells[i].needs
    changed = True
    while changed:
        changed = False
        for i, cell in enumerate(cells):
            if i not in needed and touched[i] & names:
                needed.add(i)
                names |= cell.needs
                changed = True
    return needed
