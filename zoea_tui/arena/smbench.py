"""SMBench's own prompt, read from the user's checkout (``zoea arena --smbench DIR``).

SMBench publishes no licence, so none of its text is in this project: it is read, at
run time, from the checkout the user points at. SMBench lays its checkout out as
``scenarios/<scenario id>.md`` (the task the model is given, with its rules and success
criteria) and a ``config*.yaml`` whose ``commander_path`` names SpaceMolt's ``commander``
client (by default ``../commander/src/commander.ts``), the client SMBench's runner plays:
``prompt.md`` at the client's root (its gameplay guide) inside the system prompt that
``buildSystemPrompt`` in ``commander.ts`` writes, and a first user message ``Begin your
mission: <scenario>``. That is the client the user has, not necessarily the one SMBench's
published runs were played with: commander's guide was rewritten after them.

:func:`load` reads all of it; :func:`provenance` says which client prompt that is (the
client checkout's commit and date, and its guide's last change) beside SMBench's
published runs (the days they were played, their transcripts' first requests in tokens).
:meth:`Checkout.system_prompt` fills the client's template as the client does: the
scenario text, the guide, the account (Zoea's ``{{ACCOUNT}}``, which points at the state
message: the router logs the pilot in), the list of game commands and an empty TODO
list; :meth:`Checkout.task` is the first user message.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.game_tool import game_tool
from ..core.tokens import MESSAGE_OVERHEAD, REQUEST_OVERHEAD, count_tokens, encoding_name
from .scenarios import SCENARIOS

#: Where SMBench's configurations say the client is, when none says.
DEFAULT_COMMANDER = "../commander/src/commander.ts"
#: The client's first user message, when its source does not show it.
DEFAULT_OPENING = "Begin your mission: "

_COMMANDER_PATH = re.compile(r"^commander_path:\s*['\"]?([^'\"\s#]+)", re.MULTILINE)
_TEMPLATE = re.compile(r"prompt\s*\+?=\s*`((?:[^`\\]|\\.)*)`", re.DOTALL)
_OPENING = re.compile(r"content:\s*`([^`$]*)\$\{cliArgs\.instruction\}`")
_PLACEHOLDER = re.compile(r"\$\{([^}]*)\}")
_NEXT_FUNCTION = re.compile(r"\n(?:export\s+)?(?:async\s+)?function\s")


class CheckoutError(ValueError):
    """The folder is not an SMBench checkout the arena can read (one line for the user)."""


@dataclass(frozen=True, slots=True)
class Checkout:
    """What the arena sends from an SMBench checkout."""

    root: Path
    #: The scenario texts, by key (``"s1"`` … ``"s6"``), as the files have them.
    scenarios: dict[str, str]
    #: ``buildSystemPrompt``'s template parts, in order (``${…}`` placeholders kept).
    templates: tuple[str, ...]
    #: The client's gameplay guide (``prompt.md``).
    guide: str
    #: What the client's first user message puts before the scenario text.
    opening: str
    #: Where the client was found.
    client: Path

    def task(self, key: str) -> str:
        """The first user message of scenario ``key``, as the client sends it."""
        return f"{self.opening}{self.scenarios[key]}"

    def system_prompt(self, key: str, commands: Iterable[str]) -> str:
        """The client's system prompt for scenario ``key`` (see the module docstring)."""
        values = {
            "instruction": self.scenarios[key],
            "promptMd": self.guide,
            "credentials": "{{ACCOUNT}}",
            "commandList": "\n".join(f"- {name}" for name in commands),
        }

        def fill(match: re.Match[str]) -> str:
            expression = match.group(1).strip()
            name = expression.split("||", 1)[0].strip()
            if name in values:
                return values[name]
            if name == "todo":
                fallback = expression.split("||", 1)[1].strip() if "||" in expression else ""
                return fallback.strip("\"'")
            return ""  # e.g. the server info the client fetched before its first turn

        parts = [_PLACEHOLDER.sub(fill, t) for t in self.templates if "serverInfo}" not in t]
        return "".join(parts).strip() + "\n"


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CheckoutError(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def _client(root: Path) -> Path:
    """The client's ``commander.ts``: from the checkout's configuration, else the default."""
    named = None
    for config in sorted(root.glob("config*.yaml")):
        found = _COMMANDER_PATH.search(_read(config, "the configuration"))
        if found:
            named = found.group(1)
            if config.name == "config.yaml":
                break
    return (root / (named or DEFAULT_COMMANDER)).resolve()


def load(root: Path) -> Checkout:
    """Read an SMBench checkout and the client beside it; :class:`CheckoutError` says in
    one line what is missing."""
    root = root.expanduser()
    folder = root / "scenarios"
    if not folder.is_dir():
        raise CheckoutError(f"{root} is not an SMBench checkout: it has no scenarios/ folder")
    scenarios = {}
    for key, scenario in SCENARIOS.items():
        path = folder / f"{scenario.id}.md"
        if path.is_file():
            scenarios[key] = _read(path, "the scenario").strip()
    if not scenarios:
        raise CheckoutError(f"{folder} holds none of the scenario files (s1-bootstrap-grind.md …)")
    client = _client(root)
    if not client.is_file():
        raise CheckoutError(
            f"SpaceMolt's commander client, whose prompt SMBench plays with, is not at {client} "
            "(the checkout's commander_path, else ../commander beside it)"
        )
    source = _read(client, "the client")
    start = source.find("function buildSystemPrompt")
    body = _NEXT_FUNCTION.split(source[start:], maxsplit=1)[0] if start >= 0 else ""
    templates = tuple(m.group(1) for m in _TEMPLATE.finditer(body))
    if not any("${promptMd}" in t for t in templates):
        raise CheckoutError(f"{client} has no buildSystemPrompt template with the guide in it")
    opening = _OPENING.search(source)
    guide = _read(client.parent.parent / "prompt.md", "the client's guide")
    return Checkout(
        root=root,
        scenarios=scenarios,
        templates=tuple(t.replace("\\`", "`") for t in templates),
        guide=guide.strip(),
        opening=opening.group(1) if opening else DEFAULT_OPENING,
        client=client,
    )


# -- which prompt this is, beside the one SMBench's published runs were played with ---------


@dataclass(frozen=True, slots=True)
class ClientVersion:
    """The client checkout a prompt was read from: its commit and the last change of its
    guide (``prompt.md``), each with its date (None: not a git checkout, or no git)."""

    root: Path
    commit: str | None = None
    date: str | None = None
    prompt_commit: str | None = None
    prompt_date: str | None = None


def _git(root: Path, *args: str) -> str | None:
    """One line of ``git -C root log -1 …`` (None when git or the history is not there)."""
    git = shutil.which("git")
    if git is None:
        return None
    try:
        done = subprocess.run(
            [git, "-C", str(root), "log", "-1", "--format=%H %cI", *args],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    line = done.stdout.strip()
    return line if done.returncode == 0 and line else None


def client_version(checkout: Checkout) -> ClientVersion:
    """The commit and date of the client the checkout's prompt was read from, and the
    last commit that changed its guide."""
    root = checkout.client.parent.parent
    head = _git(root)
    guide = _git(root, "--", "prompt.md")
    commit, date = head.split(" ", 1) if head else (None, None)
    prompt_commit, prompt_date = guide.split(" ", 1) if guide else (None, None)
    return ClientVersion(root, commit, date, prompt_commit, prompt_date)


@dataclass(frozen=True, slots=True)
class PublishedRuns:
    """What the checkout's published results say of how they were played: the first and
    last day they were played on, and each scenario's first requests (prompt tokens of
    each transcript's first model call, as the model's own API counted them)."""

    first_day: str | None = None
    last_day: str | None = None
    first_requests: dict[str, list[int]] = field(default_factory=dict)


def published_runs(root: Path) -> PublishedRuns:
    """Read the dates and first requests of the checkout's published runs (none: empty)."""
    days: list[str] = []
    firsts: dict[str, list[int]] = {}
    for path in sorted((root / "results").glob("*/transcripts/*/*.jsonl")):
        key = path.name.split("-", 1)[0]
        found = False
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            if isinstance(event.get("ts"), str):
                days.append(event["ts"][:10])
            if not found and event.get("event") == "llm_call" and event.get("tokens_in"):
                firsts.setdefault(key, []).append(int(event["tokens_in"]))
                found = True
    if not days:
        for path in sorted((root / "results").glob("*/results.json")):
            try:
                stamp = json.loads(path.read_text(encoding="utf-8")).get("timestamp")
            except (OSError, ValueError):
                continue
            if isinstance(stamp, str):
                days.append(stamp[:10])
    return PublishedRuns(min(days, default=None), max(days, default=None), firsts)


def first_request_tokens(checkout: Checkout, key: str, specs: Sequence[Mapping[str, Any]]) -> int:
    """Tokens of the client's first request for scenario ``key`` as the arena sends it:
    the system prompt, the first message and the one ``game`` tool (estimated with
    :func:`~zoea_tui.core.tokens.count_tokens`, with its per-message overheads)."""
    system = checkout.system_prompt(key, [str(spec["name"]) for spec in specs])
    tool = json.dumps(game_tool(specs), ensure_ascii=False)
    return (
        count_tokens(system)
        + count_tokens(checkout.task(key))
        + count_tokens(tool)
        + 2 * MESSAGE_OVERHEAD
        + REQUEST_OVERHEAD
    )


def provenance(
    checkout: Checkout, keys: Sequence[str], specs: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """What ``--smbench`` read and how it stands beside SMBench's published runs (the
    JSON of a report's ``"smbench"``); :func:`provenance_lines` says it."""
    client = client_version(checkout)
    runs = published_runs(checkout.root)
    later: bool | None = None
    if client.prompt_date and runs.last_day:
        later = client.prompt_date[:10] > runs.last_day
    first: dict[str, Any] = {}
    for key in keys:
        ours = first_request_tokens(checkout, key, specs)
        theirs = sorted(runs.first_requests.get(key, []))
        entry: dict[str, Any] = {"tokens": ours, "published": None}
        if theirs:
            median = theirs[len(theirs) // 2]
            entry["published"] = {
                "median": median,
                "min": theirs[0],
                "max": theirs[-1],
                "runs": len(theirs),
            }
            entry["difference"] = ours - median
        first[key] = entry
    return {
        "checkout": str(checkout.root),
        "client": str(client.root),
        "client_commit": client.commit,
        "client_date": client.date,
        "prompt_commit": client.prompt_commit,
        "prompt_date": client.prompt_date,
        "published_first_day": runs.first_day,
        "published_last_day": runs.last_day,
        "prompt_after_published": later,
        "first_request": first,
        "tokens_by": encoding_name(),
    }


def provenance_lines(found: Mapping[str, Any]) -> list[str]:
    """The lines ``zoea arena --smbench`` says before it plays (see :func:`provenance`)."""
    commit = found.get("client_commit")
    where = found["client"]
    if commit:
        read = (
            f"the client prompt read is commander's at {where}, commit {commit[:10]} of "
            f"{str(found['client_date'])[:10]}"
        )
        if found.get("prompt_commit"):
            read += (
                f" (its guide, prompt.md, last changed in {found['prompt_commit'][:10]} "
                f"on {str(found['prompt_date'])[:10]})"
            )
    else:
        read = (
            f"the client prompt read is commander's at {where} "
            "(not a git checkout: no commit or date known)"
        )
    first, last = found.get("published_first_day"), found.get("published_last_day")
    span = f"{first} – {last}" if first != last else str(first)
    later = found.get("prompt_after_published")
    if first is None:
        when = "the checkout holds no published runs to compare it with"
    elif later:
        when = (
            f"SMBench's published runs ({span}) used an earlier client prompt: this one "
            "was changed after them, so they were not told what this run is told"
        )
    elif later is None:
        when = (
            f"SMBench's published runs ({span}) may have used an earlier client prompt "
            "(this one's date is not known)"
        )
    else:
        when = f"unchanged since before SMBench's published runs ({span})"
    lines = [f"{read}; {when}"]
    for key, entry in (found.get("first_request") or {}).items():
        ours = entry["tokens"]
        theirs = entry.get("published")
        if theirs is None:
            lines.append(f"{key} first request: {ours:,} tokens here; no published transcript")
            continue
        lines.append(
            f"{key} first request: {ours:,} tokens here ({found['tokens_by']} estimate: "
            f"system prompt, first message, the game tool), {theirs['median']:,} in the "
            f"published transcripts (median of {theirs['runs']}, {theirs['min']:,}–"
            f"{theirs['max']:,}, each model's own count): {entry['difference']:+,} tokens"
        )
    return lines
