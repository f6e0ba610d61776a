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


def test_the_engine_draws_randomness_only_from_its_seeded_rng() -> None:
    package = Path(zoea_tui.sim.__file__).parent
    for path in package.rglob("*.py"):
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
