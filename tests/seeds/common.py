"""One conversation, composed two ways: by the public ``compose`` and by ``zoea context --json``.

A seed's test builds a :class:`Chat` (the conversation as the JSONL ``zoea import``
reads, and the same memories in a :class:`~tests.helpers.Log`), then checks both
requests with the same functions: ``report`` is ``Composition.to_dict()`` or the
command's JSON, which has the same ``messages`` and ``items``. The checks of the seeds'
rules (:func:`seed_001_violations`, :func:`seed_002_violations`) name what they find
and keep tests of their own showing them reject what they should.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import Log, history_of
from zoea_tui.cli import main
from zoea_tui.core.compose import compose
from zoea_tui.core.composition import DEFAULT_SNAPSHOT_TOOLS, ComposeSettings
from zoea_tui.core.types import Turn
from zoea_tui.core.validator import validate

Report = dict[str, Any]


class Chat:
    """A conversation written once, as JSONL lines for ``zoea import`` and as memories."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.log = Log()
        self._calls = 0

    def direct(self, text: str) -> int:
        """A commander direct message; its memory id."""
        self.lines.append({"role": "user", "content": text})
        return self.log.direct(text).id

    def broadcast(self, text: str, sender: str | None = None) -> int:
        """A broadcast (the commander's when ``sender`` is None); its memory id."""
        line: dict[str, Any] = {"role": "user", "source": "broadcast", "content": text}
        if sender is not None:
            line["sender_id"] = sender
        self.lines.append(line)
        return self.log.broadcast(text, sender).id

    def say(self, text: str) -> int:
        """An answer of the model; its memory id."""
        self.lines.append({"role": "assistant", "content": text})
        return self.log.say(text).id

    def calls(self, *calls: tuple[str, str]) -> list[str]:
        """One assistant message calling each ``(name, result)`` in turn, and the results;
        the call ids (``c1``, ``c2`` … in the order made)."""
        ids = []
        for _ in calls:
            self._calls += 1
            ids.append(f"c{self._calls}")
        self.lines.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": n, "arguments": "{}"}}
                    for i, (n, _) in zip(ids, calls, strict=True)
                ],
            }
        )
        self.log.call(*((i, n) for i, (n, _) in zip(ids, calls, strict=True)))
        for i, (name, result) in zip(ids, calls, strict=True):
            self.lines.append({"role": "tool", "tool_call_id": i, "content": result})
            self.log.result(i, name, result)
        return ids

    def loop(self, name: str, result: str) -> str:
        """One call and its result; the call id."""
        return self.calls((name, result))[0]

    def compose(
        self,
        strategy: str,
        settings: ComposeSettings | None = None,
        *,
        turns: tuple[Turn, ...] = (),
        upto: int | None = None,
    ) -> Report:
        """The request ``compose`` makes of the first ``upto`` memories (all: None)."""
        settings = settings or ComposeSettings()
        memories = self.log.memories[:upto] if upto is not None else self.log.memories
        history = history_of(memories, settings, strategy=strategy, turns=turns)
        report = compose(history, strategy, settings).to_dict()
        assert validate(report["messages"]) == [], report["messages"]
        return report

    def cli(self, tmp_path: Path, capsys: pytest.CaptureFixture[str], strategy: str) -> Report:
        """``zoea import`` the conversation into a fresh database, then the JSON of
        ``zoea context --strategy`` (the command's default settings: the seeds' 20)."""
        folder = tmp_path / f"cli-{len(list(tmp_path.glob('cli-*')))}"
        folder.mkdir()
        conversation = folder / "conversation.jsonl"
        conversation.write_text("".join(json.dumps(line) + "\n" for line in self.lines))
        db = folder / "z.db"
        # Named as ``history_of`` names its Mysis, so both requests are the same bytes.
        assert main(["import", "--db", str(db), "--mysis", "test", str(conversation)]) == 0
        capsys.readouterr()
        args = ["context", "--db", str(db), "--mysis", "test", "--strategy", strategy, "--json"]
        code = main(args)
        out, err = capsys.readouterr()
        assert (code, err) == (0, ""), err
        report: Report = json.loads(out)
        assert report["valid"] is True and report["violations"] == [], report["violations"]
        return report


def both(
    chat: Chat, tmp_path: Path, capsys: pytest.CaptureFixture[str], strategy: str
) -> tuple[Report, Report]:
    """The request by ``compose`` and by ``zoea context --json`` (default settings), which
    are the same messages: what the command shows is what the composer sends."""
    composed, shown = chat.compose(strategy), chat.cli(tmp_path, capsys, strategy)
    assert shown["messages"] == composed["messages"]
    return composed, shown


def memory_ids(report: Report) -> list[int]:
    """The stored memories a request holds (placeholders included), in order."""
    return [i["memory_id"] for i in report["items"] if isinstance(i["memory_id"], int)]


def synthetic_kinds(report: Report) -> list[str]:
    """The kinds of the generated messages of a request (nudge, note, state …), in order."""
    return [i["kind"] for i in report["items"] if i["memory_id"] == "synthetic"]


def tool_results(report: Report) -> list[tuple[str, str, str]]:
    """``(tool name, action, content)`` of each tool message, in order; the name is read
    from the call the result answers, in the request itself."""
    names = {
        call["id"]: call["function"]["name"]
        for message in report["messages"]
        for call in message.get("tool_calls") or ()
    }
    return [
        (names[message["tool_call_id"]], item["action"], message["content"])
        for message, item in zip(report["messages"], report["items"], strict=True)
        if message["role"] == "tool"
    ]


def seed_001_violations(report: Report, maximum: int = 20) -> list[str]:
    """Seed 001's bound: the system prompt first, then at most ``maximum`` memories (the
    labelled notes, the nudge and the game-state message are not memories)."""
    problems = []
    if report["messages"][0]["role"] != "system" or report["items"][0]["kind"] != "system":
        problems.append("the system prompt is not first")
    held = memory_ids(report)
    if len(held) > maximum:
        problems.append(f"{len(held)} memories, more than the {maximum} of the window")
    if len(set(held)) != len(held):
        problems.append("a memory is sent twice")
    return problems


def seed_002_violations(
    report: Report, snapshot_tools: tuple[str, ...] = DEFAULT_SNAPSHOT_TOOLS
) -> list[str]:
    """Seed 002's rule: of each snapshot tool's results in the request, the latest is
    sent in full and every older one as a placeholder."""
    problems = []
    for tool in snapshot_tools:
        results = [(action, text) for name, action, text in tool_results(report) if name == tool]
        if not results:
            continue
        full = [text for action, text in results if action != "placeholder"]
        if len(full) > 1:
            problems.append(f"{len(full)} full {tool} results, not only the latest")
        if results[-1][0] == "placeholder":
            problems.append(f"the latest {tool} result is a placeholder")
    return problems
