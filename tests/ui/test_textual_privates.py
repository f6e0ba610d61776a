"""Textual's and Rich's private names are used in zoea_tui/ui/textual_compat/ only.

An AST check over the package, the tests, the benchmarks and the scripts: a ``textual._*``
or ``rich._*`` module imported, an ``_attribute`` of a Textual object read or set, or a
private method of Textual overridden (a ``def`` or class attribute of that name), outside
``zoea_tui/ui/textual_compat/`` and its own tests (``tests/ui/textual_compat/``).

"A Textual object" is known by name, not type: the private names of the Textual classes
the UI builds on (the classes in :data:`OWNERS` and their bases, from their class
dictionaries and the ``self._name`` they set), less :data:`OURS`, private names of our
own that happen to match one of those on some other Textual class.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import textwrap
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from textual._styles_cache import StylesCache
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.containers import Horizontal, VerticalScroll
from textual.css.stylesheet import Stylesheet
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver
from textual.screen import ModalScreen, Screen
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, Static

ROOT = Path(__file__).resolve().parents[2]
#: Where private names are allowed: the compat layer and its own tests.
ALLOWED = (
    "zoea_tui/ui/textual_compat/",
    "tests/ui/textual_compat/",
    "tests/ui/test_textual_privates.py",
)
#: Code that handles Textual's objects whether or not it imports Textual (and snippets).
UI_CODE = ("zoea_tui/ui/", "tests/ui/", "<snippet>")
#: Where the check looks.
SCANNED = ("zoea_tui", "tests", "bench", "scripts")
#: The Textual classes the UI subclasses or reaches into (their bases count too).
OWNERS: tuple[type, ...] = (
    App,
    Screen,
    ModalScreen,
    Widget,
    ScrollView,
    ScrollBar,
    Static,
    Input,
    VerticalScroll,
    Horizontal,
    Strip,
    Driver,
    LinuxDriver,
    XTermParser,
    StylesCache,
    Stylesheet,
)
#: Our own private names that match a private name of some class in :data:`OWNERS`'s
#: bases, on objects of ours that are not that class (each checked by hand: the class of
#: ours that uses it has no Textual base with that name).
OURS = frozenset(
    {
        "_composed",  # DashboardScreen's last composition (App has its own)
        "_flush",  # DashboardScreen's batch flush (the driver has its own)
        "_width",  # TextView's rendered width (Input has its own)
        "_value",  # ModelField's initial value (a Horizontal; Input has its own)
        "_lines",  # BroadcastLog, TextView, TextBlock (a VerticalScroll has none)
        "_loop",  # bench/quit.py's own server thread
        "_ready",  # bench/quit.py's own server thread
    }
)


@cache
def textual_private_names() -> frozenset[str]:
    """The private names of the classes in :data:`OWNERS` and their Textual/Rich bases."""
    names: set[str] = set()
    for owner in OWNERS:
        for cls in owner.__mro__:
            if not cls.__module__.startswith(("textual", "rich")):
                continue
            names.update(n for n in vars(cls) if _private(n))
            names.update(
                getattr(cls, "__slots__", ()) and [n for n in cls.__slots__ if _private(n)]
            )
            try:
                tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
            except (OSError, TypeError):
                continue
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "self"
                    and _private(node.attr)
                ):
                    names.add(node.attr)
    return frozenset(names - OURS)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_module(module: str) -> bool:
    parts = module.split(".")
    return parts[0] in ("textual", "rich") and any(_private(p) for p in parts[1:])


def private_uses(source: str, where: str = "<snippet>") -> Iterator[str]:
    """Each use of a private name of Textual or Rich in ``source``, as ``where:line: what``.

    Attributes and overrides count in the UI's code and tests, and in any file that imports
    Textual or Rich (the engine cannot: ``lint-imports`` forbids it); imports count anywhere.
    """
    tree = ast.parse(source)
    touches_textual = where.startswith(UI_CODE) or any(
        isinstance(node, ast.Import | ast.ImportFrom)
        and any(
            m.split(".")[0] in ("textual", "rich")
            for m in (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
        )
        for node in ast.walk(tree)
    )
    privates = textual_private_names() if touches_textual else frozenset()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _private_module(alias.name):
                    yield f"{where}:{node.lineno}: import {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            if node.module.split(".")[0] in ("textual", "rich") and any(
                _private_module(m) for m in modules
            ):
                yield f"{where}:{node.lineno}: from {node.module} import ..."
        elif isinstance(node, ast.Attribute) and node.attr in privates:
            yield f"{where}:{node.lineno}: .{node.attr}"
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    if item.name in privates:
                        yield f"{where}:{item.lineno}: def {item.name} (overrides Textual's)"
                elif isinstance(item, ast.Assign | ast.AnnAssign):
                    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                    for target in targets:
                        if isinstance(target, ast.Name) and target.id in privates:
                            yield f"{where}:{item.lineno}: {target.id} = (shadows Textual's)"


def _scanned_files() -> Iterator[Path]:
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if not rel.startswith(ALLOWED) and "/." not in rel:
                yield path


def test_no_private_textual_name_is_used_outside_the_compat_layer() -> None:
    found = [
        use
        for path in _scanned_files()
        for use in private_uses(path.read_text(), path.relative_to(ROOT).as_posix())
    ]
    assert found == [], "move these into zoea_tui/ui/textual_compat/:\n" + "\n".join(found)


def test_the_check_rejects_each_kind_of_private_use() -> None:
    snippets = {
        "from textual._styles_cache import StylesCache": "from textual._styles_cache",
        "import rich._loop": "import rich._loop",
        "from textual import _time": "from textual import",
        "screen._refresh_layout(size)": "._refresh_layout",
        "n = app.stylesheet._rules": "._rules",
        "widget._layout_required = False": "._layout_required",
        "class A(App):\n    def _on_screen_resume(self, e): ...": "def _on_screen_resume",
        "class A(App):\n    _background_screens = []": "_background_screens =",
    }
    for snippet, what in snippets.items():
        uses = list(private_uses(snippet))
        assert len(uses) == 1 and what in uses[0], (snippet, uses)


def test_the_check_lets_public_names_and_our_own_privates_pass() -> None:
    clean = (
        "from textual.app import App\n"
        "from zoea_tui.ui.textual_compat import _private_thing\n"
        "class A(App):\n"
        "    def _refresh_status(self): self._mysis_name = 1\n"
        "    def on_mount(self): self.refresh(layout=True)\n"
    )
    assert list(private_uses(clean)) == []


def test_our_own_names_that_match_textuals_are_not_textuals_on_our_widgets() -> None:
    # OURS may only name what no Textual class a widget of ours is built on has.
    widget_privates = set()
    for cls in Widget.__mro__ + ScrollView.__mro__ + Screen.__mro__:
        if cls.__module__.startswith("textual"):
            widget_privates.update(vars(cls))
            with contextlib.suppress(OSError, TypeError):
                widget_privates.update(
                    n.attr
                    for n in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(cls))))
                    if isinstance(n, ast.Attribute)
                    and isinstance(n.value, ast.Name)
                    and n.value.id == "self"
                )
    assert OURS & widget_privates == set()
