"""The command line as the tests run it: ``zoea ARGS`` in a process of its own
(``python -m zoea_tui.cli``), or ``main([...])`` in this one (so that mutation testing
sees it, docs/MUTATION.md).

The subprocess timeout is a hang detector (a process that hung would run until it), never
a measure of speed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from zoea_tui.cli import main

#: The command line in a process of its own: this interpreter running the CLI module.
ZOEA = (sys.executable, "-m", "zoea_tui.cli")
#: Long enough for any command on a loaded machine; a process that hangs runs until it.
HANG = 300.0


def python(
    *args: str | Path,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    preexec_fn: Callable[[], object] | None = None,
    timeout: float = HANG,
) -> subprocess.CompletedProcess[str]:
    """Run this interpreter with ``args`` (``-c CODE``, say) in its own process (standard
    output and error captured as text; ``env``, ``cwd``, ``preexec_fn`` as for
    :func:`subprocess.run`)."""
    return subprocess.run(
        [sys.executable, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=cwd,
        preexec_fn=preexec_fn,
    )


def loaded_by(code: str, modules: Sequence[str]) -> list[str]:
    """Run ``code`` in a clean interpreter (:func:`python`); those of ``modules`` it loaded,
    sorted (a top-level name counts with its submodules)."""
    listing = (
        "import sys\n"
        f"wanted = {tuple(modules)!r}\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in wanted "
        "or m in wanted)))\n"
    )
    done = python("-c", code + "\n" + listing)
    assert done.returncode == 0, done.stderr
    return [name for name in done.stdout.strip().split(",") if name]


def zoea(*args: str | Path, **options: Any) -> subprocess.CompletedProcess[str]:
    """Run ``zoea ARGS`` in its own process, as :func:`python` runs its arguments (the same
    ``options``)."""
    return python(*ZOEA[1:], *args, **options)


def zoea_bytes(
    *args: str | Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run ``zoea ARGS`` in its own process; its output as the bytes it wrote."""
    return subprocess.run([*ZOEA, *map(str, args)], capture_output=True, env=env, timeout=HANG)


def simulate(
    config: Path,
    provider: str,
    db: Path,
    *,
    myses: int,
    turns: int,
    extra: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """``zoea simulate`` in its own process with ``config``'s ``provider``."""
    return zoea(
        *("simulate", "--config", config, "--provider", provider),
        *("--myses", str(myses), "--turns", str(turns), "--db", db, *extra),
    )


def openai_config(path: Path, name: str, url: str, **keys: str | float) -> Path:
    """Write a config file at ``path`` with one OpenAI-compatible provider ``name`` at
    ``url``, model "m" unless ``keys`` name another, and the other ``keys``; ``path``."""
    lines = [f"[providers.{name}]", 'type = "openai"', f'endpoint = "{url}"']
    lines += [f"{key} = {json.dumps(value)}" for key, value in ({"model": "m"} | keys).items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def break_command(monkeypatch: pytest.MonkeyPatch, command: str) -> str:
    """Make ``zoea COMMAND`` fail as nothing foreseen fails (a RuntimeError); its words."""
    import zoea_tui.cli as cli

    words = "the flux capacitor melted"

    async def broken(args: object) -> int:
        raise RuntimeError(words)

    monkeypatch.setitem(cli._COMMANDS, command, broken)
    return words


def in_process(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """``main([ARGS])`` in this process: its exit code, standard output and error.

    argparse's refusals end the parse with SystemExit; its code is returned as the exit
    code (ours return 2), and the error compared by the test tells them apart."""
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
