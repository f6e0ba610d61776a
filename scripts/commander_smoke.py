"""Play SpaceMolt's own client, unmodified, against the embedded world: a smoke check.

Starts the embedded world (MCP and the HTTP API, real clock) and a scripted model on an
OpenAI-compatible loopback server, then runs ``commander`` (github SpaceMolt/commander,
TypeScript on bun) pointed at the world. The scripted model plays through commander's
own ``game`` tool and reads only what commander shows it: register, save the
credentials, undock, fly to a belt, mine until the hold is full, fly back, dock, sell
every item, write a captain's log entry. The script then reads SMBench's admin
endpoints and prints a JSON summary; it exits 0 when the client registered, mined, sold
and logged with no refusal but the hold filling up (``cargo_full``).

    .venv/bin/python scripts/commander_smoke.py --commander ../commander [--api v1] [--bun PATH]

Nothing leaves the machine: commander needs ``bun install`` run once in its checkout.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.llm_servers import Call, FakeOpenAIServer, RecordedRequest, Reply
from zoea_tui.sim import World
from zoea_tui.sim.api_sessions import ApiSettings
from zoea_tui.sim.host import WorldHost
from zoea_tui.sim.serve import serving

TOKEN = "commander-smoke"
USERNAME = "SmokeMiner"
DONE = "Mission complete: mined, sold, logged."


def _history(body: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """``(tool, arguments, result text)`` of every tool call answered so far."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    seen = []
    for message in body.get("messages", []):
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                function = call["function"]
                calls[call["id"]] = (function["name"], json.loads(function["arguments"] or "{}"))
        elif message.get("role") == "tool":
            name, args = calls.get(message.get("tool_call_id", ""), ("?", {}))
            content = message.get("content")
            if isinstance(content, list):
                content = "".join(part.get("text", "") for part in content)
            seen.append((name, args, str(content or "")))
    return seen


def _cargo(text: str) -> list[tuple[str, int]]:
    """The hold as commander shows it: JSON text (API v2) or its YAML rendering (v1)."""
    for line in text.splitlines():
        if line.startswith("{"):
            return [(c["item_id"], c["quantity"]) for c in json.loads(line)["cargo"]]
    pattern = r"item_id: (\w+)\s+(?:\S+: .*\s+)*?quantity: (\d+)"
    return [(item, int(qty)) for item, qty in re.findall(pattern, text)]


def decide(body: dict[str, Any], belt: str, station: str) -> Reply:
    """The next move, from the conversation commander sent."""
    history = _history(body)
    games = [(a.get("command", ""), a.get("args") or {}, r) for n, a, r in history if n == "game"]
    ok = [(c, a, r) for c, a, r in games if not r.startswith("Error")]
    done = {c for c, _, _ in ok}

    def game(command: str, args: dict[str, Any] | None = None) -> Reply:
        return Reply(tool_calls=[Call("game", {"command": command, "args": args or {}})])

    if "spacemolt_auth/register" not in done:
        return game("spacemolt_auth/register", {"username": USERNAME, "empire": "solarian"})
    if "save_credentials" not in [n for n, _, _ in history]:
        text = next(r for c, _, r in ok if c == "spacemolt_auth/register")
        password = re.search(r'password"?: "?([0-9a-f]{64})', text)
        player = re.search(r'player_id"?: "?([0-9a-f]+)', text)
        assert password and player, text[:300]
        credentials = {"username": USERNAME, "password": password.group(1)}
        credentials |= {"empire": "solarian", "player_id": player.group(1)}
        return Reply(tool_calls=[Call("save_credentials", credentials)])
    travels = [a.get("target_poi") for c, a, _ in ok if c == "spacemolt/travel"]
    if "spacemolt/undock" not in done:
        return game("spacemolt/undock")
    if belt not in travels:
        return game("spacemolt/travel", {"target_poi": belt})
    if not any(c == "spacemolt/mine" and r.startswith("Error") for c, _, r in games):
        return game("spacemolt/mine")
    if station not in travels:
        return game("spacemolt/travel", {"target_poi": station})
    if "spacemolt/dock" not in done:
        return game("spacemolt/dock")
    if "spacemolt/get_cargo" not in done:
        return game("spacemolt/get_cargo")
    sold = {a.get("item_id") for c, a, _ in ok if c == "spacemolt/sell"}
    for item, quantity in _cargo(next(r for c, _, r in ok if c == "spacemolt/get_cargo")):
        if item not in sold:
            return game("spacemolt/sell", {"item_id": item, "quantity": quantity})
    if "spacemolt_social/captains_log_add" not in done:
        return game("spacemolt_social/captains_log_add", {"entry": "Mined a hold, sold it."})
    return Reply(DONE)


class ScriptedModel(FakeOpenAIServer):
    """An OpenAI-compatible server whose answers come from :func:`decide`."""

    def __init__(self, belt: str, station: str) -> None:
        super().__init__()
        self.belt, self.station = belt, station
        self.finished = asyncio.Event()

    async def _respond(self, request: RecordedRequest, conn: Any) -> None:
        if self._is_chat(request):
            reply = decide(request.json(), self.belt, self.station)
            if reply.content == DONE:
                self.finished.set()
            self.script(reply)
        await super()._respond(request, conn)


async def smoke(commander: Path, bun: str, api: str, seconds: float) -> dict[str, Any]:
    host = WorldHost(World(seed=42), tick_seconds=0.2)
    system = host.world.galaxy.systems["sol"]
    pois = [host.world.galaxy.pois[p] for p in system.poi_ids]
    belt = next(p.id for p in pois if p.type == "asteroid_belt")
    station = next(p.id for p in pois if p.base is not None)
    session = f"zoea-smoke-{os.getpid()}"
    async with (
        serving(host, api=ApiSettings(TOKEN, time.time, lambda: secrets.token_hex(16))) as world,
        ScriptedModel(belt, station) as model,
    ):
        env = {**os.environ, "OPENAI_COMPAT_BASE_URL": model.url, "OPENAI_COMPAT_API_KEY": "x"}
        process = await asyncio.create_subprocess_exec(
            *(bun, "run", str(commander / "src" / "commander.ts")),
            *("--url", f"{world.base_url}/api/{api}", "--model", "scripted/miner"),
            *("--session", session, "--benchmark", "mine ore and sell it"),
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(model.finished.wait(), seconds)
        process.send_signal(signal.SIGINT)
        output, _ = await process.communicate()
        shutil.rmtree(commander / "sessions" / session, ignore_errors=True)
        async with httpx.AsyncClient(timeout=30) as http:
            admin = {"Authorization": f"Bearer {TOKEN}"}
            base = f"{world.base_url}/api/admin/benchmark"
            stats = (
                await http.get(f"{base}/player-stats", params={"player_id": session}, headers=admin)
            ).json()
            events = (await http.get(f"{base}/event-log", headers=admin)).json()
    lines = [json.loads(x) for x in output.decode().splitlines() if x.startswith('{"event"')]
    counters = stats.get("stats", {})
    return {
        "api": api,
        "finished": model.finished.is_set(),
        "username": stats.get("username"),
        "credits_earned": counters.get("credits_earned", 0),
        "ore_sold": counters.get("ore_sold", 0),
        "captains_log_entries": counters.get("captains_log_entries", 0),
        "client_tool_calls": sum(1 for e in lines if e["event"] == "tool_call"),
        "client_tool_errors": sum(1 for e in lines if e["event"] == "tool_error"),
        "refusals": dict(Counter(e["error_code"] for e in events if e["error_code"])),
        "mine_ticks": [e["tick"] for e in events if e["command"] == "mine" and e["success"]],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commander", type=Path, required=True, help="commander's checkout")
    parser.add_argument("--bun", default=shutil.which("bun") or "bun", help="the bun binary")
    parser.add_argument("--api", choices=["v2", "v1"], default="v2", help="v1 is SMBench's")
    parser.add_argument("--seconds", type=float, default=180, help="give up after this long")
    args = parser.parse_args()
    report = asyncio.run(smoke(args.commander.resolve(), args.bun, args.api, args.seconds))
    print(json.dumps(report, indent=2))
    good = (
        report["finished"]
        and report["credits_earned"] > 0
        and report["captains_log_entries"] >= 1
        and set(report["refusals"]) <= {"cargo_full", "no_cargo_space"}
    )
    return 0 if good else 1


if __name__ == "__main__":
    raise SystemExit(main())
