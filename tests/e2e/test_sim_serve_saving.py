"""``zoea sim serve`` on Ctrl-C or SIGTERM says it is saving the world, saves it (to
``--state``, else to a new file in the data folder's ``sim-worlds/``) and exits 0; a
server that cannot serve makes no file (a real process, a real signal)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.cli_runner import ZOEA
from tests.sim.test_served_secrets import Served
from zoea_tui.cli import SERVED_WORLDS, main


def serve(data: Path, *flags: str) -> tuple[subprocess.Popen[str], list[str]]:
    """``zoea sim serve`` on a free port with ``data`` as its data folder: the process and
    the four lines it says first."""
    proc = subprocess.Popen(
        [*ZOEA, "sim", "serve", "--port", "0", *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "ZOEA_DATA_DIR": str(data)},
    )
    assert proc.stdout is not None
    return proc, [proc.stdout.readline() for _ in range(4)]


def register(banner: list[str], name: str) -> None:
    """A pilot registered through the served HTTP API: something the saved world keeps."""
    root = re.search(r"server\.url: (http://\S+)\s", banner[2])
    assert root, banner
    with httpx.Client(timeout=30) as http:
        Served(root.group(1), f"{root.group(1)}/api/v2").register(http, name)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_server_says_it_saves_the_world_to_its_default_file_and_does(
    tmp_path: Path, stop: signal.Signals
) -> None:
    proc, banner = serve(tmp_path, "--seed", "7", "--tick-seconds", "0")
    try:
        found = re.fullmatch(r"  the world is saved on exit to (\S+)\n", banner[3])
        assert found, banner
        world = Path(found.group(1))
        assert world.parent == tmp_path / SERVED_WORLDS
        assert re.fullmatch(r"seed-7-\d{8}-\d{6}\.json", world.name), world
        register(banner, "Ada")
    finally:
        proc.send_signal(stop)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out == f"saving the world to {world} …\nworld saved to {world}\n"
    assert err == ""
    saved = json.loads(world.read_text(encoding="utf-8"))
    assert saved["seed"] == 7
    assert "Ada" in json.dumps(saved["players"])


def test_a_second_run_makes_a_world_of_its_own_and_state_carries_one_on(
    tmp_path: Path,
) -> None:
    """Without ``--state`` no run loads or overwrites another's world; with it, the world
    is loaded and saved back where it was."""
    proc, banner = serve(tmp_path, "--seed", "7", "--tick-seconds", "0")
    register(banner, "Ada")
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    proc, banner = serve(tmp_path, "--seed", "7", "--tick-seconds", "0")
    register(banner, "Ada")  # a new world: the name is free again
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    first, second = sorted((tmp_path / SERVED_WORLDS).iterdir())
    assert first != second
    proc, banner = serve(tmp_path, "--state", str(first), "--tick-seconds", "0")
    assert banner[3] == f"  the world is saved on exit to {first}\n"
    register(banner, "Brin")
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert out == f"saving the world to {first} …\nworld saved to {first}\n"
    players = json.dumps(json.loads(first.read_text(encoding="utf-8"))["players"])
    assert "Ada" in players and "Brin" in players


def test_a_port_in_use_makes_no_world_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZOEA_DATA_DIR", str(tmp_path / "data"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["sim", "serve", "--port", str(port), "--tick-seconds", "0"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert "the port is in use" in err
    assert not (tmp_path / "data").exists()


def test_a_data_folder_that_cannot_take_the_world_is_refused_before_serving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ZOEA_DATA_DIR", str(blocker / "data"))
    code = main(["sim", "serve", "--port", "0", "--tick-seconds", "0"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == (
        f"zoea sim: cannot use the folder {blocker / 'data' / SERVED_WORLDS}: {blocker} is "
        "a file, not a folder; choose a file with --state, or a data folder with --data-dir\n"
    )
    assert blocker.read_text() == "not a folder"
