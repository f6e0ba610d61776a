"""The engine is pure: importing it pulls in no MCP, asyncio, UI or storage module, and
no module of the world draws randomness but from its seeded ``random.Random`` or reads
the wall clock (an AST check, with the snippets it must refuse)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import zoea_tui.sim

FORBIDDEN = ("mcp", "asyncio", "textual", "rich", "sqlite3", "aiosqlite", "httpx")
#: Modules whose every use is unseeded randomness or the wall clock.
IMPURE_MODULES = frozenset({"time", "datetime", "uuid", "secrets", "importlib"})
#: ``os`` functions that read the machine's randomness.
IMPURE_OS = frozenset({"urandom", "getrandom"})
#: Calls that read a clock, whatever they are called on (``loop.time()``).
CLOCK_CALLS = frozenset({"time", "monotonic", "perf_counter", "now", "utcnow", "today"})
#: The one module that gives ticks a length in real time (``tick_seconds``): its
#: event loop's clock says when a tick happens, never what the world holds.
CLOCK_ALLOWED = frozenset({"host.py"})


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


def impurities(source: str, *, clock_allowed: bool = False) -> list[str]:
    """What in ``source`` draws unseeded randomness or reads the wall clock, by line.

    Allowed: ``import random`` used only as ``random.Random(seed)`` and ``from random
    import Random`` called with a seed; everything drawn from such an instance
    (``self.rng.choice``) is the seeded generator's.
    """
    tree = ast.parse(source)
    found: list[str] = []
    random_modules: set[str] = set()  # names bound to the random module
    random_classes: set[str] = set()  # names bound to random.Random
    os_modules: set[str] = set()

    def say(node: ast.AST, what: str) -> None:
        found.append(f"line {getattr(node, 'lineno', '?')}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                bound = alias.asname or root
                if root in IMPURE_MODULES:
                    say(node, f"import {alias.name}")
                elif alias.name == "random":
                    random_modules.add(bound)
                elif alias.name == "os":
                    os_modules.add(bound)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            root = node.module.split(".")[0]
            names = [alias.name for alias in node.names]
            if root in IMPURE_MODULES:
                say(node, f"from {node.module} import {', '.join(names)}")
            elif node.module == "random":
                for alias in node.names:
                    if alias.name == "Random":
                        random_classes.add(alias.asname or "Random")
                    else:
                        say(node, f"from random import {alias.name}")
            elif node.module == "os" and IMPURE_OS & set(names):
                say(node, f"from os import {', '.join(sorted(IMPURE_OS & set(names)))}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner = node.value.id
            if owner in random_modules and node.attr != "Random":
                say(node, f"{owner}.{node.attr} (the unseeded global generator)")
            elif owner in os_modules and node.attr in IMPURE_OS:
                say(node, f"{owner}.{node.attr}")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "__import__":
                say(node, "__import__")
            seeded_class = (isinstance(func, ast.Name) and func.id in random_classes) or (
                isinstance(func, ast.Attribute)
                and func.attr == "Random"
                and isinstance(func.value, ast.Name)
                and func.value.id in random_modules
            )
            if seeded_class and not node.args and not node.keywords:
                say(node, "Random() without a seed")
            if (
                not clock_allowed
                and isinstance(func, ast.Attribute)
                and func.attr in CLOCK_CALLS
                and not node.args
            ):
                say(node, f".{func.attr}() (a clock)")
    return found


def test_the_world_draws_randomness_only_from_its_seeded_rng_and_reads_no_clock() -> None:
    package = Path(zoea_tui.sim.__file__).parent
    files = sorted(package.rglob("*.py"))
    assert len(files) > 20
    found = {
        str(path.relative_to(package)): problems
        for path in files
        if (
            problems := impurities(
                path.read_text(encoding="utf-8"), clock_allowed=path.name in CLOCK_ALLOWED
            )
        )
    }
    assert found == {}


@pytest.mark.parametrize(
    "snippet",
    [
        "import random\nx = random.choice([1, 2])",
        "import random\nrandom.seed(3)",
        "import random as r\nx = r.random()",
        "from random import choice",
        "from random import Random, shuffle",
        "from random import Random\nrng = Random()",
        "import random\nrng = random.Random()",
        "import random\nrng = random.SystemRandom(4)",
        "import time\nnow = time.time()",
        "from time import time",
        "from time import monotonic as clock",
        "import datetime",
        "from datetime import datetime\nstamp = datetime.now()",
        "import uuid\nkey = uuid.uuid4()",
        "import secrets",
        "import os\nsalt = os.urandom(8)",
        "from os import urandom",
        "mod = __import__('random')",
        "import importlib\nmod = importlib.import_module('random')",
        "def tick(loop):\n    return loop.time()",
        "stamp = clock.now()",
    ],
)
def test_the_purity_check_refuses_each_impure_snippet(snippet: str) -> None:
    assert impurities(snippet), snippet


@pytest.mark.parametrize(
    "snippet",
    [
        "import random\nrng = random.Random(seed)",
        "import random\ndef f(rng: random.Random) -> int:\n    return rng.randint(1, 6)",
        "from random import Random\nrng = Random(7)",
        "x = self.rng.choice(items)",
        "import os\npath = os.path.join('a', 'b')",
        "from .rules import travel_ticks",
        "text = 'time.time() and random.choice in a string'",
    ],
)
def test_the_purity_check_accepts_seeded_draws(snippet: str) -> None:
    assert impurities(snippet) == []


def test_the_host_alone_may_read_its_event_loops_clock() -> None:
    host = Path(zoea_tui.sim.__file__).parent / "host.py"
    assert impurities(host.read_text(encoding="utf-8"), clock_allowed=True) == []
    assert impurities(host.read_text(encoding="utf-8"))  # loop.time(): a clock
