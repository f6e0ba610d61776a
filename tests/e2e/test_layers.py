"""The engine never imports Textual or Rich (proved in a clean interpreter)."""

from __future__ import annotations

from tests.cli_runner import loaded_by

ENGINE = [
    "zoea_tui.core",
    "zoea_tui.storage",
    "zoea_tui.providers",
    "zoea_tui.game",
    "zoea_tui.sim",
    "zoea_tui.orchestrator",
    "zoea_tui.config",
]

# httpx and httpx2 import their optional command-line tool (``_main``), which loads
# Rich whenever Rich is installed; that is the library's doing, not ours. The stubs keep
# those two modules out so the check sees only what our packages import.
STUB_HTTP_CLIS = (
    "import sys, types\n"
    "for cli in ('httpx._main', 'httpx2._main'):\n"
    "    stub = types.ModuleType(cli); stub.main = lambda *a, **k: None\n"
    "    sys.modules[cli] = stub\n"
)


def test_engine_packages_do_not_import_textual_or_rich() -> None:
    code = STUB_HTTP_CLIS + (
        "import importlib, pkgutil, sys\n"
        f"for name in {ENGINE!r}:\n"
        "    package = importlib.import_module(name)\n"
        "    for info in pkgutil.walk_packages(package.__path__, name + '.'):\n"
        "        importlib.import_module(info.name)\n"
    )
    assert loaded_by(code, ("textual", "rich")) == []


def test_the_app_paints_before_the_engine_is_imported() -> None:
    """The app's module loads without the engine: the MCP SDK (about a second of imports)
    is loaded in a thread once the first frame is on screen."""
    heavy = ("mcp", "zoea_tui.orchestrator.commander", "zoea_tui.game.session")
    assert loaded_by("import zoea_tui.ui.app", heavy) == [], "imported before the first paint"
