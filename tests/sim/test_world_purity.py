"""The engine is pure: importing it pulls in no MCP, asyncio, UI or storage module."""

import subprocess
import sys
from pathlib import Path

import zoea_tui.sim

FORBIDDEN = ("mcp", "asyncio", "textual", "rich", "sqlite3", "aiosqlite", "httpx")


def test_importing_the_engine_loads_no_io_or_ui_module() -> None:
    code = (
        "import sys, zoea_tui.sim, zoea_tui.sim.engine\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""


def _engine_files() -> list[Path]:
    """The source files of every ``zoea_tui.sim`` module the engine loads.

    The facades beside it (the host's clock, the MCP and HTTP servers) meet the wall
    clock and mint session ids by nature; the world itself never may.
    """
    code = (
        "import sys, zoea_tui.sim, zoea_tui.sim.engine\n"
        "print('\\n'.join(sorted(m.__file__ for n, m in sys.modules.items()\n"
        "    if n.startswith('zoea_tui.sim') and getattr(m, '__file__', None))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return [Path(line) for line in out.splitlines() if line]


def test_the_engine_draws_randomness_only_from_its_seeded_rng() -> None:
    files = _engine_files()
    package = Path(zoea_tui.sim.__file__).parent
    assert package / "engine.py" in files and package / "commands" / "market.py" in files
    for path in files:
        source = path.read_text()
        for banned in (
            "random.random(",
            "random.randint(",
            "random.choice(",
            "time.",
            "datetime",
            "uuid",
            "secrets",
            "os.urandom",
        ):
            assert banned not in source, f"{path.name} uses {banned}"


def test_the_purity_check_covers_the_engine_and_not_its_facades() -> None:
    names = {path.name for path in _engine_files()}
    assert {"engine.py", "rules.py", "tools.py", "errors.py"} <= names
    assert not {"host.py", "serve.py", "mcp_server.py"} & names
