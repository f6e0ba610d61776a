"""Every code name the README and docs/ cite in inline code exists.

Three shapes are checked (test_doc_links.py checks the paths with a slash):

- a file name, ``strips.py``: some file of the repository (or of Textual or Rich, whose
  code the compatibility notes cite) is named so;
- a dotted name, ``Store.add_memory``, ``core.cache.served_from_cache``,
  ``search.Query.of``: when its first part names a module of ours (by its last name or a
  dotted tail of its path), a class of ours, or a class or module of Textual or Rich, each
  following part is found in what the part before it defines: a module's top-level names
  and submodules, a class's methods, fields, class attributes and the ``self.x`` its
  methods set, with those of its bases. Names whose first part is none of these
  (``usage.prompt_tokens``, ``os.environ``) are fields of a wire format or other
  libraries', not checked;
- a constant or class name, ``AUTH_TOOLS``, ``GameStateCache``: the word occurs in the
  repository's code or build files (environment variables included), in Textual's or
  Rich's code, or among Python's built-in names.

docs/MUTATION.md is a log of dated runs that names each mutant as mutmut named it then
(``router._search`` 3, since moved); it is not checked. The code is read with :mod:`ast`,
never imported. A test shows the check naming a made-up
file, module name, method and constant.
"""

from __future__ import annotations

import ast
import builtins
import re
import sqlite3
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest
import rich
import textual

from .test_doc_links import DOCUMENTS, ROOT

_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_CODE = re.compile(r"`([^`\n]+)`")
_FILE = re.compile(r"^[\w-]+\.py$")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?$")
#: A constant (``AUTH_TOOLS``) or a class name of two humps or more (``GameStateCache``).
_WORD = re.compile(r"^(?:[A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)$")
#: The file kinds a dotted citation may end with (``config.toml``, ``arena.json``): a file
#: name, checked only when it is Python's.
_FILE_KINDS = {"py", "md", "toml", "json", "jsonl", "log", "ts", "sql", "txt", "png", "svg"}
#: Tracked files whose words are not code: the documents and figures.
_NOT_CODE = {".md", ".svg", ".png", ".json", ".jsonl"}
_PACKAGES = ("zoea_tui", "tests", "bench", "scripts")
_LIBRARIES = (Path(textual.__file__).parent, Path(rich.__file__).parent)


@dataclass
class Scope:
    """What a module or a class defines, as :mod:`ast` reads it."""

    names: set[str] = field(default_factory=set)
    classes: dict[str, Scope] = field(default_factory=dict)
    bases: list[str] = field(default_factory=list)
    #: A module's other names: its classes' members (``memories.load_history`` for
    #: ``MemoriesTables.load_history``, as mutmut names them) and the keys it writes
    #: (``metrics.game_calls``).
    inner: set[str] = field(default_factory=set)


@dataclass
class Index:
    """The modules and classes of a body of code, by the names a document uses."""

    modules: dict[str, list[Scope]] = field(default_factory=dict)
    classes: dict[str, list[Scope]] = field(default_factory=dict)
    files: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    #: The store's tables and their columns (``turns.state``), as the migrations leave them.
    tables: dict[str, set[str]] = field(default_factory=dict)


def _targets(node: ast.AST) -> list[str]:
    """The plain names an assignment binds."""
    match node:
        case ast.Name(id=name):
            return [name]
        case ast.Tuple(elts=elts) | ast.List(elts=elts):
            return [n for e in elts for n in _targets(e)]
    return []


#: ``self.x = …``, ``self.x: T = …``, ``self.x += …`` (never ``self.x == …``).
_SELF_SET = re.compile(r"\bself\.(\w+)\s*(?::[^=\n]+)?[-+*/|&]?=(?!=)")
#: A quoted identifier: a key a module writes.
_KEY = re.compile(r"[\"']([A-Za-z_]\w*)[\"']")


def _scope(
    body: list[ast.stmt], index: Index, lines: list[str], bases: list[str] | None = None
) -> Scope:
    """The names a module's or a class's body defines (``lines``: the module's text); its
    classes go to ``index`` too."""
    scope = Scope(bases=bases or [])
    for node in body:
        match node:
            case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name):
                scope.names.add(name)
                if bases is not None:
                    text = "\n".join(lines[node.lineno - 1 : node.end_lineno])
                    scope.names.update(_SELF_SET.findall(text))
            case ast.ClassDef(name=name):
                base_names = [
                    b.id if isinstance(b, ast.Name) else b.attr
                    for b in node.bases
                    if isinstance(b, ast.Name | ast.Attribute)
                ]
                inner = _scope(node.body, index, lines, base_names)
                scope.names.add(name)
                scope.classes[name] = inner
                index.classes.setdefault(name, []).append(inner)
            case ast.Assign(targets=targets):
                scope.names.update(n for t in targets for n in _targets(t))
            case ast.AnnAssign(target=target):
                scope.names.update(_targets(target))
            case ast.Import(names=aliases) | ast.ImportFrom(names=aliases):
                scope.names.update((a.asname or a.name).split(".")[0] for a in aliases)
            case ast.If(body=inner_body, orelse=orelse) | ast.Try(body=inner_body, orelse=orelse):
                nested = _scope([*inner_body, *orelse], index, lines, bases)
                scope.names |= nested.names
                scope.classes |= nested.classes
    return scope


def _add_tree(index: Index, root: Path, package: str, *, every_tail: bool) -> None:
    """Index every module under ``root`` (the package ``package``); a module is known by
    its dotted path and, when ``every_tail``, by each dotted tail of it (``cache``,
    ``core.cache``, ``zoea_tui.core.cache``)."""
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        index.files.add(path.name)
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        text = path.read_text(encoding="utf-8")
        try:
            tree = ast.parse(text)
        except SyntaxError:  # a seed or a template, not a module
            continue
        scope = _scope(tree.body, index, text.splitlines())
        scope.inner = {n for c in scope.classes.values() for n in c.names}
        scope.inner.update(_KEY.findall(text))
        for start in range(len(parts)) if every_tail else (0,):
            index.modules.setdefault(".".join(parts[start:]), []).append(scope)
        index.words |= scope.names | set(scope.classes)
    # A package also holds its submodules by name.
    for name in list(index.modules):
        head, _, last = name.rpartition(".")
        for parent in index.modules.get(head, []) if head else []:
            parent.names.add(last)


@cache
def code_index() -> Index:
    """Our code (every tail of its module paths) beside Textual's and Rich's (by their
    full dotted paths), and the words of every tracked file but the documents."""
    index = Index()
    for package in _PACKAGES:
        _add_tree(index, ROOT / package, package, every_tail=package != "tests")
    for library in _LIBRARIES:
        _add_tree(index, library, library.name, every_tail=False)
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for name in tracked:
        path = ROOT / name
        index.files.add(path.name)
        if name.startswith("tests/docs/") or path.suffix in _NOT_CODE or not path.is_file():
            continue  # the documents, and the tests that quote them
        index.words |= set(re.findall(r"\w+", path.read_text(encoding="utf-8", errors="ignore")))
    index.words |= set(dir(builtins))
    index.tables = schema()
    return index


def schema() -> dict[str, set[str]]:
    """Each table's columns after every migration, applied to an empty database (the SQL
    functions they call never run on it: they are stubs)."""
    db = sqlite3.connect(":memory:")
    for name in ("zoea_text_hash", "zoea_unhex"):
        db.create_function(name, 1, lambda _: None)
    for migration in sorted((ROOT / "store" / "migrations").glob("*.sql")):
        db.executescript(migration.read_text(encoding="utf-8"))
    tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    columns = {t: {row[1] for row in db.execute(f"PRAGMA table_info({t})")} for t in tables}
    db.close()
    return columns


def _has(scope: Scope, name: str, index: Index, seen: frozenset[int] = frozenset()) -> bool:
    """Whether a class (with its bases) or a module defines ``name``. A base that is
    none of the indexed classes (``Exception``, ``NamedTuple``) may define anything."""
    if name in scope.names or name in scope.inner or id(scope) in seen:
        return True
    for base in scope.bases:
        known = index.classes.get(base)
        if not known:
            return True
        if any(_has(b, name, index, seen | {id(scope)}) for b in known):
            return True
    return False


def _resolves(scopes: list[Scope], rest: list[str], index: Index) -> bool:
    """Whether ``rest`` is found, part by part, from any of ``scopes``."""
    if not rest:
        return True
    head, *tail = rest
    for scope in scopes:
        if not _has(scope, head, index):
            continue
        inner = [c for c in [scope.classes.get(head)] if c]
        inner += index.classes.get(head, []) if not inner else []
        if not tail or not inner or _resolves(inner, tail, index):
            return True
    return False


def missing_name(cited: str, index: Index) -> bool:
    """Whether an inline code citation names a file, module or code name that does not
    exist (what is not a citation of code is never missing)."""
    cited = cited.removesuffix("()")
    if _FILE.match(cited):
        return cited not in index.files
    if _DOTTED.match(cited):
        parts = cited.split(".")
        if parts[-1] in _FILE_KINDS:
            return False  # a file the app writes, or another project's
        if len(parts) == 2 and parts[1] in index.tables.get(parts[0], ()):
            return False  # a table's column
        for cut in range(len(parts) - 1, 0, -1):
            modules = index.modules.get(".".join(parts[:cut]))
            if modules:
                return not _resolves(modules, parts[cut:], index)
        classes = index.classes.get(parts[0])
        return bool(classes) and not _resolves(classes, parts[1:], index)
    if _WORD.match(cited):
        return cited not in index.words
    return False


def missing(markdown: str) -> list[str]:
    """The names a document's inline code cites (outside code blocks) that do not exist."""
    index = code_index()
    prose = _FENCE.sub("", markdown)
    return [code for code in _CODE.findall(prose) if missing_name(code, index)]


#: The documents whose names are of their day (see the module's docstring).
LOGS = {ROOT / "docs" / "MUTATION.md"}


@pytest.mark.parametrize(
    "document", [d for d in DOCUMENTS if d not in LOGS], ids=lambda p: str(p.relative_to(ROOT))
)
def test_every_code_name_the_docs_cite_exists(document: Path) -> None:
    assert missing(document.read_text(encoding="utf-8")) == []


def test_the_check_rejects_a_made_up_file_module_method_and_constant() -> None:
    made_up = (
        "`nowhere.py` beside `strips.py`; `Store.add_memory` and `Store.no_such_method`; "
        "`core.cache.served_from_cache` and `core.cache.no_such_name`; `search.Query.of` "
        "and `search.Query.nothing`; `no_such_module.thing` and `usage.prompt_tokens` "
        "(not code); `GameStateCache` and `AUTH_TOOLS`; `Strip.crop_extend` and "
        "`Strip.no_such_strip`; `SwarmModel.feed()`; `config.toml`.\n"
        "```\nStore.not_checked_in_a_code_block\n```\n"
    )
    assert missing(made_up) == [
        "nowhere.py",
        "Store.no_such_method",
        "core.cache.no_such_name",
        "search.Query.nothing",
        "AUTH_TOOLS",
        "Strip.no_such_strip",
    ]
