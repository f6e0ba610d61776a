"""``zoea arena --smbench DIR``: the scenario files and the client's prompt read from a
checkout laid out like SMBench's (a small fake one, in our own words: SMBench's text is
never copied here), sent as its client sends them; the autopilot plays from either wording.

``scripts/smbench_checkout_check.py DIR`` checks a real SMBench checkout (with SpaceMolt's
``commander`` beside it) the same way: the suite cannot hold one, and skips nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.llm_servers import Call, FakeOpenAIServer, Reply
from zoea_tui.arena.scenarios import SCENARIOS
from zoea_tui.arena.smbench import CheckoutError, load
from zoea_tui.cli import main
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
    code = main(["arena", *flags, "--db", str(tmp_path / "a.db")])
    err = capsys.readouterr().err
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
        config = tmp_path / "config.toml"
        config.write_text(
            f'[providers.m]\ntype = "openai"\nendpoint = "{server.url}"\nmodel = "m"\n',
            encoding="utf-8",
        )
        code = main(
            [
                *("arena", "--scenario", "s2", "--provider", "m", "--smbench", str(bench)),
                *("--config", str(config), "--db", str(tmp_path / "a.db"), "--json"),
                "--no-baseline",
            ]
        )
        first = server.chat_requests[0].json()
    assert code == 0
    report = json.loads(capsys.readouterr().out)
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
    code = main(
        [
            *("arena", "--scenario", "s2", "--provider", "autopilot", "--smbench", str(bench)),
            *("--budget", "ticks", "--ticks", "60", "--db", str(tmp_path / "a.db"), "--json"),
        ]
    )
    assert code == 0
    (run,) = json.loads(capsys.readouterr().out)["cells"][0]["runs"]
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
