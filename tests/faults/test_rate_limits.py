"""A rate-limited server (HTTP 429) under the one retry policy, over real loopback HTTP.

Every caller (the command center's runtime, ``zoea simulate``, ``zoea arena``, ``zoea
probe``) waits the server's ``Retry-After``, in seconds or as an HTTP date, in the
server's own time (a virtual clock does not skip it), says so in one line ("rate limited
· next try in 1 s"), and calls a 429 "rate limited". A wait past the one cap
(``core/retry.py`` ``MAX_SERVER_WAIT``, ten minutes) is not waited for by a bounded
caller: the failure is told at once, naming the wait asked for and the cap.

| caller     | 429 + Retry-After: 1 / an HTTP date    | Retry-After: 1000 days             |
|------------|----------------------------------------|------------------------------------|
| runtime    | waited for real, pane "rate limited"   | PATIENT: waits the cap (10 min)    |
| simulate   | waited, a line on stderr, exit 0       | one try, exit 3, "longer than the" |
| arena      | waited, a line on stderr, exit 0       | one try, exit 3                    |
| probe      | waited, a line on stderr, flies        | "rate limited", advice to wait     |
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from tests.cli_runner import simulate, zoea
from tests.fakes.llm_servers import Call, FakeOpenAIServer, HttpError, Reply
from tests.faults.conftest import (
    RecordingClock,
    cloud_config,
    engine_config,
    open_swarm,
    until,
)
from zoea_tui.cli import main
from zoea_tui.core.retry import MAX_SERVER_WAIT, PATIENT
from zoea_tui.orchestrator.events import MysisChanged, retry_notice

ABSURD = str(1000 * 86400)  # a thousand days


class Hint:
    """A ``Retry-After`` in one of its forms, and whether a retry honoured it."""

    def __init__(self, form: str) -> None:
        self.form = form
        # An HTTP date has whole seconds; 3 s ahead leaves the run time to start.
        self.date = (datetime.now(UTC) + timedelta(seconds=3)).replace(microsecond=0)
        self.value = "1" if form == "seconds" else format_datetime(self.date, usegmt=True)

    def honoured(self, server: FakeOpenAIServer) -> bool:
        """The retry came a second after the refusal, or not before the date."""
        first, second = server.chat_requests[:2]
        if self.form == "seconds":
            return second.at - first.at >= 0.95
        return second.wall >= self.date.timestamp() - 0.05


def _waited(server: FakeOpenAIServer) -> float:
    """Seconds between the refused chat request and the one after it."""
    first, second = server.chat_requests[:2]
    return second.at - first.at


def _simulate(tmp_path: Path, url: str) -> subprocess.CompletedProcess[str]:
    config = engine_config(tmp_path, url)
    return simulate(config, "engine", tmp_path / "sim.db", myses=1, turns=1)


@pytest.mark.parametrize("form", ["seconds", "http-date"])
def test_simulate_waits_the_servers_retry_after_and_says_so(tmp_path: Path, form: str) -> None:
    hint = Hint(form)
    with FakeOpenAIServer().running_in_thread() as server:
        server.script(HttpError(429, "slow down", retry_after=hint.value))
        server.default = Reply("Holding here.")
        done = _simulate(tmp_path, server.url)

    assert done.returncode == 0, done.stderr
    # Waited in the server's time, not skipped by the simulated clock.
    assert hint.honoured(server)
    (line,) = [x for x in done.stderr.splitlines() if "next try" in x]
    assert re.fullmatch(r"zoea simulate: sim-01: rate limited · next try in \d(\.\d)? s", line)
    assert "refused" not in done.stderr


def test_simulate_reports_a_wait_past_the_cap_at_once(tmp_path: Path) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        server.default = HttpError(429, "daily quota", retry_after=ABSURD)
        done = _simulate(tmp_path, server.url)

    assert done.returncode == 3
    assert len(server.chat_requests) == 1  # not waited for, not hammered either
    line = done.stderr.strip()
    assert line.count("\n") == 0, done.stderr
    assert "rate limited" in line and "1000 days" in line
    assert "longer than the 10 min the app waits" in line


def _arena(tmp_path: Path, url: str) -> int:
    return main(
        [
            *("arena", "--scenario", "s2", "--provider", "engine", "--ticks", "6"),
            *("--config", str(engine_config(tmp_path, url))),
            *("--db", str(tmp_path / "a.db"), "--json"),
        ]
    )


def test_arena_waits_the_servers_retry_after_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        server.script(HttpError(429, "slow down", retry_after="1"))
        server.default = Reply("Holding here.")
        code = _arena(tmp_path, server.url)
        waited = _waited(server)
    err = capsys.readouterr().err
    assert code == 0, err
    assert waited >= 0.9
    assert re.search(r"^zoea arena: arena-\S+: rate limited · next try in 1 s$", err, re.M), err


def test_arena_reports_a_wait_past_the_cap_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        server.default = HttpError(429, "daily quota", retry_after=ABSURD)
        code = _arena(tmp_path, server.url)
        tries = len(server.chat_requests)
    err = capsys.readouterr().err
    assert code == 3
    assert tries == 1  # one policy: the client does not retry under the runtime's retries
    assert "rate limited" in err and "1000 days" in err and "next try" not in err


STATUS_CALL = Reply(tool_calls=[Call("get_status", {"section": "ship"})])


def _probe(tmp_path: Path, url: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ZOEA_"))}
    env |= {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    return zoea("probe", url, "--json", env=env)


@pytest.mark.parametrize("form", ["seconds", "http-date"])
def test_the_probe_waits_a_rate_limit_and_flies(tmp_path: Path, form: str) -> None:
    hint = Hint(form)
    with FakeOpenAIServer().running_in_thread() as server:
        server.script(HttpError(429, "slow down", retry_after=hint.value))
        server.default = STATUS_CALL
        done = _probe(tmp_path, server.url)

    assert done.returncode == 0, done.stderr
    assert hint.honoured(server)
    (line,) = done.stderr.splitlines()
    assert line.startswith("zoea probe: stream: rate limited · next try in "), line
    assert json.loads(done.stdout)["verdict"]["flies"] is True


def test_the_probe_calls_a_long_rate_limit_by_its_name_and_says_to_wait(tmp_path: Path) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        server.default = HttpError(429, "slow down", retry_after=ABSURD)
        done = _probe(tmp_path, server.url)

    assert done.returncode == 3
    failures = json.loads(done.stdout)["verdict"]["failures"]
    assert failures and {f["kind"] for f in failures} == {"rate_limited"}
    assert {f["label"] for f in failures} == {"rate limited"}
    fix = failures[0]["fix"]
    assert "rate limiting" in fix and "1000 days" in fix
    assert "system and one user message" not in fix  # no advice about the request
    assert "refused" not in done.stderr and "slow down" not in done.stderr.split(":")[1]


@pytest.mark.parametrize("form", ["seconds", "http-date"])
async def test_the_command_center_waits_for_real_and_shows_rate_limited(
    tmp_path: Path, form: str
) -> None:
    hint = Hint(form)
    async with FakeOpenAIServer() as server:
        server.script(HttpError(429, "slow down", retry_after=hint.value))
        server.default = Reply("Holding here.")
        clock = RecordingClock()
        commander, sub = await open_swarm(tmp_path, cloud_config(server.url), clock=clock)
        seen: list[MysisChanged] = []
        try:
            await commander.create_mysis("Ada", provider="cloud")

            def retried() -> bool:
                while (event := sub.get_nowait()) is not None:
                    if isinstance(event, MysisChanged) and event.reason == "retry":
                        seen.append(event)
                return len(server.chat_requests) >= 2

            await until(retried)
        finally:
            await commander.shutdown(timeout=2.0)
        honoured = hint.honoured(server)

    (event,) = seen
    assert event.mysis.activity == "rate limited"  # the pane: "rate limited · next try in 1s"
    assert event.mysis.next_try_at is not None
    notice = retry_notice(event, now=event.mysis.next_try_at - 1.0)
    assert notice == "Ada: rate limited · next try in 1 s"
    assert len(clock.outside) == 1 and clock.outside[0] <= 3.0  # the virtual clock waited it
    assert honoured


def test_the_command_center_waits_an_absurd_hint_only_up_to_the_cap() -> None:
    assert MAX_SERVER_WAIT == 600.0
    assert PATIENT.delay(1, hint=float(ABSURD)) == MAX_SERVER_WAIT
