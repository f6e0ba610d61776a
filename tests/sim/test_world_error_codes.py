"""Every error code the engine can raise is exercised by a test in this folder."""

import re
from pathlib import Path

import zoea_tui.sim

CODE = re.compile(r'GameError\(\s*"([a-z_]+)"')


def _codes_in(text: str) -> set[str]:
    return set(CODE.findall(text))


def test_every_error_code_is_covered_by_a_test() -> None:
    package = Path(zoea_tui.sim.__file__).parent
    raised: set[str] = set()
    for path in package.rglob("*.py"):
        raised |= _codes_in(path.read_text())
    tests = "".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
    assert len(raised) >= 30
    missing = sorted(code for code in raised if code not in tests)
    assert missing == []
