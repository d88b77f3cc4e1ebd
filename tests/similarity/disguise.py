"""What a student hiding a copy does to a Python bot, done mechanically to a real one: every
name the file defines renamed (the course API's methods kept, so the copy still plays),
docstrings and comments dropped, the layout redone (`ast.unparse`), functions and methods in
reverse order, and comments of its own added."""

from __future__ import annotations

import ast
import builtins

#: the course API's names: renaming them would break the copy
KEEP = {"initPlayer", "selectColumn", "playerName", "self", "cls", "seed", "__init__",
        "M", "N", "K", "B"}


class _Defined(ast.NodeVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.names.add(node.name)
        self.names.update(a.arg for a in node.args.args + node.args.kwonlyargs)
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.names.add(node.name)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            self.names.add(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Store):
            self.names.add(node.attr)
        self.generic_visit(node)


class _Rename(ast.NodeTransformer):
    def __init__(self, table: dict[str, str]) -> None:
        self.table = table

    def _n(self, name: str) -> str:
        return self.table.get(name, name)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self._n(node.name)
        for a in node.args.args + node.args.kwonlyargs:
            a.arg = self._n(a.arg)
        self.generic_visit(node)
        _strip_docstring(node)
        node.body = _reordered(node.body)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.name = self._n(node.name)
        self.generic_visit(node)
        _strip_docstring(node)
        node.body = _reordered(node.body)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._n(node.id)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        node.attr = self._n(node.attr)
        return node

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        self.generic_visit(node)
        if node.arg is not None:
            node.arg = self._n(node.arg)
        return node


def _strip_docstring(node: ast.AST) -> None:
    body = getattr(node, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body.pop(0)
        if not body:
            body.append(ast.Pass())


def _reordered(body: list[ast.stmt]) -> list[ast.stmt]:
    """The functions of a body in reverse order, each where a function was."""
    slots = [i for i, s in enumerate(body) if isinstance(s, (ast.FunctionDef, ast.ClassDef))]
    funcs = [body[i] for i in reversed(slots)]
    out = list(body)
    for i, f in zip(slots, funcs, strict=True):
        out[i] = f
    return out


def disguise(source: str) -> str:
    tree = ast.parse(source)
    finder = _Defined()
    finder.visit(tree)
    imported = {(a.asname or a.name).split(".")[0] for n in ast.walk(tree)
                if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    names = sorted(finder.names - KEEP - imported - set(dir(builtins)))
    table = {name: f"q{i}_{name[::-1].strip('_')}x" for i, name in enumerate(names)}
    tree = _Rename(table).visit(tree)
    _strip_docstring(tree)
    tree.body = _reordered(tree.body)  # type: ignore[attr-defined]
    lines = ast.unparse(ast.fix_missing_locations(tree)).splitlines()
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        if i % 4 == 3 and line.strip() and not line.rstrip().endswith(("(", "[", "{", ",")):
            out.append(" " * (len(line) - len(line.lstrip())) + f"# step {i} of my own bot")
    return "# my connect-x bot, written by me\n" + "\n".join(out) + "\n"
