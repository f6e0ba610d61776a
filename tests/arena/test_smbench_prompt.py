"""``zoea arena --smbench DIR``: the scenario files and the client's prompt read from a
checkout laid out like SMBench's (a small fake one, in our own words: SMBench's text is
never copied here), sent as its client sends them; the autopilot plays from either wording.

``scripts/smbench_checkout_check.py DIR`` checks a real SMBench checkout (with SpaceMolt's
``commander`` beside it) the same way: the suite cannot hold one, and skips nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli_runner import in_process, openai_config
from tests.fakes.llm_servers import Call, FakeOpenAIServer, Reply
from zoea_tui.arena.scenarios import SCENARIOS
from zoea_tui.arena.smbench import CheckoutError, load
from zoea_tui.providers.autopilot.orders import parse_order

#: Scenario files in SMBench's layout, in our own words, each phrased the way SMBench's
#: own files name their task (their titles and verbs), so the autopilot must read them.
FAKE_SCENARIOS = {
    "s1-bootstrap-grind": "# Scenario: Grinder\n\nYou will mine ore and earn credits.\n\n"
    "## Rules\n- 200 ticks\n- Do NOT explore elsewhere\n\n## Success Criteria\n- PASS: 500",
    "s2-navigation": "# Scenario: Wayfinding\n\nStart at home, undock, and explore systems.\n"
    "\n## Rules\n- 200 ticks\n\n## Success Criteria\n- PASS: 3 systems",
    "s3-trading": "# Scenario: Markets\n\nShow you can trade for profit.\n\n"
    "## Success Criteria\n- PASS: end with 1000 credits",
    "s4-social": "# Scenario: Social Intelligence\n\nMeet people; set a status.\n",
    "s5-combat": "# Scenario: Combat Readiness\n\nGet a gun, then defeat a pirate.\n",
    "s6-mission-runner": "# Scenario: Mission Runner\n\nComplete missions from the boards.\n",
}
EXPECTED_ORDERS = {
    "s1": "mine",
    "s2": "explore",
    "s3": "trade",
    "s4": "social",
    "s5": "combat",
    "s6": "missions",
}
FAKE_CLIENT = """\
import GUIDE from "../prompt.md" with { type: "text" };

function buildSystemPrompt(promptMd, instruction, credentials, todo, commandList, serverInfo) {
  let prompt = `PILOT FRAME.

## Task
${instruction}

## Guide
${promptMd}

## Login
${credentials}
`;

  if (serverInfo) {
    prompt += `
## Server
${serverInfo}
`;
  }

  prompt += `
## Commands
${commandList}

## Todo
${todo || "(nothing yet)"}

## Rules
- Use the \\`game\\` tool.
`;
  return prompt;
}

async function main() {
  const context = { messages: [{ role: "user", content: `Go now: ${cliArgs.instruction}` }] };
}
"""


def fake_checkout(root: Path, scenarios: dict[str, str] | None = None) -> Path:
    """An SMBench checkout at ``root/smbench`` and its client at ``root/commander``."""
    bench = root / "smbench"
    (bench / "scenarios").mkdir(parents=True)
    for name, text in (scenarios or FAKE_SCENARIOS).items():
        (bench / "scenarios" / f"{name}.md").write_text(text + "\n", encoding="utf-8")
    (bench / "config.yaml").write_text(
        "server:\n  url: http://localhost:1\ncommander_path: ../commander/src/commander.ts\n",
        encoding="utf-8",
    )
    (root / "commander" / "src").mkdir(parents=True)
    (root / "commander" / "src" / "commander.ts").write_text(FAKE_CLIENT, encoding="utf-8")
    (root / "commander" / "prompt.md").write_text("FAKE GUIDE: mine, sell, repeat.\n")
    return bench


def test_a_checkout_is_read_and_its_prompt_filled_as_the_client_does(tmp_path: Path) -> None:
    checkout = load(fake_checkout(tmp_path))
    assert set(checkout.scenarios) == set(SCENARIOS)
    assert checkout.task("s2") == "Go now: " + FAKE_SCENARIOS["s2-navigation"]
    prompt = checkout.system_prompt("s5", ["mine", "attack"])
    assert prompt.startswith("PILOT FRAME.\n\n## Task\n# Scenario: Combat Readiness")
    assert "## Guide\nFAKE GUIDE: mine, sell, repeat." in prompt
    assert "## Login\n{{ACCOUNT}}" in prompt  # the router logs in; the state message tells
    assert "## Commands\n- mine\n- attack" in prompt
    assert "## Todo\n(nothing yet)" in prompt and "Use the `game` tool." in prompt
    assert "## Server" not in prompt and "${" not in prompt


def test_what_is_not_an_smbench_checkout_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(CheckoutError, match="no scenarios/ folder"):
        load(tmp_path)
    bench = fake_checkout(tmp_path / "a")
    (tmp_path / "a" / "commander" / "src" / "commander.ts").unlink()
    with pytest.raises(CheckoutError, match="commander client"):
        load(bench)
    empty = fake_checkout(tmp_path / "b", {"s9-other": "x"})
    with pytest.raises(CheckoutError, match="none of the scenario files"):
        load(empty)
    odd = fake_checkout(tmp_path / "c")
    (tmp_path / "c" / "commander" / "src" / "commander.ts").write_text("const x = 1;\n")
    with pytest.raises(CheckoutError, match="no buildSystemPrompt"):
        load(odd)


@pytest.mark.parametrize(
    "args, words",
    [
        (["--smbench", "/nonexistent/smbench"], "is not an SMBench checkout"),
        (["--scenario", "s4"], "has no scenario file for s4-social"),
    ],
)
def test_the_cli_refuses_a_bad_checkout_with_one_line(
    tmp_path: Path, args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = fake_checkout(tmp_path, {k: v for k, v in FAKE_SCENARIOS.items() if "s4" not in k})
    flags = ["--scenario", "s1", "--provider", "autopilot", "--smbench", str(bench), *args]
    code, _, err = in_process(capsys, "arena", *flags, "--db", tmp_path / "a.db")
    assert code == 2 and err.count("\n") == 1 and words in err


def test_the_autopilot_reads_its_task_in_either_wording(tmp_path: Path) -> None:
    checkout = load(fake_checkout(tmp_path))
    for key, kind in EXPECTED_ORDERS.items():
        ours = parse_order(SCENARIOS[key].task)
        theirs = parse_order(checkout.task(key))
        assert ours is not None and theirs is not None
        assert (ours.kind, theirs.kind) == (kind, kind), key


def test_a_model_is_told_its_task_as_smbenchs_client_tells_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = fake_checkout(tmp_path)
    server = FakeOpenAIServer()
    server.script(
        Reply("", tool_calls=[Call("game", {"command": "get_status", "args": {}})]),
        Reply("Done."),
    )
    server.default = Reply("Done.")
    with server.running_in_thread():
        config = openai_config(tmp_path / "config.toml", "m", server.url)
        code, out, err = in_process(
            capsys,
            *("arena", "--scenario", "s2", "--provider", "m", "--smbench", bench),
            *("--config", config, "--db", tmp_path / "a.db", "--json", "--no-baseline"),
        )
        first = server.chat_requests[0].json()
    assert code == 0, err
    report = json.loads(out)
    assert report["prompt"] == "smbench"
    system = first["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("PILOT FRAME.")
    assert FAKE_SCENARIOS["s2-navigation"] in system["content"]
    assert "FAKE GUIDE" in system["content"] and "- jump" in system["content"]
    users = [m["content"] for m in first["messages"] if m["role"] == "user"]
    assert any("Go now: # Scenario: Wayfinding" in u for u in users)
    # One game tool, as SMBench's client offers (tools = "compact" for this run).
    names = [t["function"]["name"] for t in first["tools"]]
    assert "game" in names and "jump" not in names
    (run,) = report["cells"][0]["runs"]
    assert run["metrics"]["prompt"] == "smbench" and run["metrics"]["game_calls"] == 1


def test_the_autopilot_plays_from_smbenchs_wording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = fake_checkout(tmp_path)
    code, out, err = in_process(
        capsys,
        *("arena", "--scenario", "s2", "--provider", "autopilot", "--smbench", bench),
        *("--budget", "ticks", "--ticks", "60", "--db", tmp_path / "a.db", "--json"),
    )
    assert code == 0, err
    (run,) = json.loads(out)["cells"][0]["runs"]
    assert run["metrics"]["systems_explored"] >= 2 and run["metrics"]["game_errors"] == 0


@pytest.mark.parametrize(
    "text, kind",
    [
        ("Mine ore and sell it; do not engage in combat.", "mine"),
        ("Stay away from pirates and mine.", "mine"),
        ("Report your status on the missions board.", "report"),
        ("Socialise a little, then mine.", "social"),
    ],
)
def test_the_new_wordings_do_not_catch_other_orders(text: str, kind: str) -> None:
    order = parse_order(text)
    assert order is not None and order.kind == kind


def _commit(root: Path, date: str, message: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", message]):
        if args[0] == "init" and (root / ".git").exists():
            continue
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)


def _published(bench: Path, day: str, first_tokens: list[int]) -> None:
    """Transcripts of published s2 runs, in SMBench's layout (events of our own making)."""
    for index, tokens in enumerate(first_tokens, start=1):
        folder = bench / "results" / "runX" / "transcripts" / f"lab-m{index}"
        folder.mkdir(parents=True)
        events = [
            {"event": "llm_call", "ts": f"{day}T10:00:00Z", "tokens_in": tokens},
            {"event": "llm_call", "ts": f"{day}T10:00:05Z", "tokens_in": 99},
        ]
        (folder / "s2-navigation-r1.jsonl").write_text(
            "\n".join(json.dumps(e) for e in events) + "\n", encoding="utf-8"
        )


def test_smbench_says_which_client_prompt_it_read_and_how_it_stands_beside_the_published_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 43: ``--smbench`` said it sends "what SMBench's client sent in its published
    runs", though commander's guide was rewritten after them."""
    bench = fake_checkout(tmp_path)
    client = tmp_path / "commander"
    _commit(client, "2026-02-20T12:00:00+00:00", "first guide")
    (client / "prompt.md").write_text("FAKE GUIDE, rewritten: mine, sell, repeat, jump.\n")
    _commit(client, "2026-03-25T12:00:00+00:00", "guide rewritten")
    _published(bench, "2026-03-11", [2_000, 2_400, 3_000])
    code, _, printed = in_process(
        capsys,
        *("arena", "--scenario", "s2", "--provider", "autopilot", "--smbench", bench),
        *("--ticks", "2", "--db", tmp_path / "a.db"),
    )
    assert code == 0
    err = printed.splitlines()
    told = [line for line in err if line.startswith("zoea arena: --smbench: ")]
    head = subprocess.run(
        ["git", "-C", str(client), "log", "-1", "--format=%H"], capture_output=True, text=True
    ).stdout.strip()
    assert told[0] == (
        f"zoea arena: --smbench: the client prompt read is commander's at {client}, commit "
        f"{head[:10]} of 2026-03-25 (its guide, prompt.md, last changed in {head[:10]} on "
        "2026-03-25); SMBench's published runs (2026-03-11) used an earlier client prompt: "
        "this one was changed after them, so they were not told what this run is told"
    )
    checkout = load(bench)
    from zoea_tui.arena.smbench import first_request_tokens
    from zoea_tui.sim.engine import World

    ours = first_request_tokens(checkout, "s2", World.tool_specs())
    assert told[1].startswith(f"zoea arena: --smbench: s2 first request: {ours:,} tokens here")
    assert told[1].endswith(
        f"2,400 in the published transcripts (median of 3, 2,000–3,000, each model's own "
        f"count): {ours - 2_400:+,} tokens"
    )


def test_smbench_without_history_or_transcripts_says_what_it_cannot_know(tmp_path: Path) -> None:
    from zoea_tui.arena.smbench import provenance, provenance_lines
    from zoea_tui.sim.engine import World

    bench = fake_checkout(tmp_path)
    found = provenance(load(bench), ["s1"], World.tool_specs())
    assert found["client_commit"] is None and found["first_request"]["s1"]["published"] is None
    first, second = provenance_lines(found)
    assert "(not a git checkout: no commit or date known)" in first
    assert first.endswith("the checkout holds no published runs to compare it with")
    assert second.endswith("tokens here; no published transcript")
    # A prompt older than the published runs is said to be unchanged since before them.
    _commit(tmp_path / "commander", "2026-02-20T12:00:00+00:00", "guide")
    _published(bench, "2026-03-11", [2_000])
    again = provenance_lines(provenance(load(bench), ["s2"], World.tool_specs()))
    assert again[0].endswith("unchanged since before SMBench's published runs (2026-03-11)")
