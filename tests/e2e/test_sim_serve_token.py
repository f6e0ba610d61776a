"""``zoea sim serve`` without ``--admin-token`` makes a new token, prints it, and the
benchmark endpoints take that one only (in its own process, as a user runs it)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import httpx

from tests.cli_runner import ZOEA


def _serve(data: Path) -> tuple[subprocess.Popen[str], str, str]:
    proc = subprocess.Popen(
        [*ZOEA, "sim", "serve", "--port", "0", "--tick-seconds", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "ZOEA_DATA_DIR": str(data)},
    )
    assert proc.stdout is not None
    lines = [proc.stdout.readline() for _ in range(3)]
    found = re.search(r"server\.url: (http://\S+)\s+admin_token: (\S+)$", lines[2].rstrip("\n"))
    assert found, "".join(lines)
    return proc, found.group(1), found.group(2)


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=20)
    assert proc.returncode == 0


def test_a_served_world_makes_its_own_admin_token_and_takes_only_that(tmp_path: Path) -> None:
    proc, root, token = _serve(tmp_path)
    try:
        assert re.fullmatch(r"[A-Za-z0-9_-]{24}", token), token
        url = f"{root}/api/admin/benchmark/player-stats"
        with httpx.Client(timeout=30) as http:
            wrong = http.get(url, params={"player_id": "x"}, headers={"Authorization": "Bearer no"})
            right = http.get(
                url, params={"player_id": "x"}, headers={"Authorization": f"Bearer {token}"}
            )
        assert wrong.status_code == 401 and right.status_code != 401
    finally:
        _stop(proc)
    second, _, other = _serve(tmp_path)
    _stop(second)
    assert other != token, "a new token each time"
