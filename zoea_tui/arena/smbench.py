"""SMBench's own prompt, read from the user's checkout (``zoea arena --smbench DIR``).

SMBench publishes no licence, so none of its text is in this project: it is read, at
run time, from the checkout the user points at. SMBench lays its checkout out as
``scenarios/<scenario id>.md`` (the task the model is given, with its rules and success
criteria) and a ``config*.yaml`` whose ``commander_path`` names SpaceMolt's ``commander``
client (by default ``../commander/src/commander.ts``), whose prompt SMBench's runs were
played with: ``prompt.md`` at the client's root (its gameplay guide) inside the system
prompt that ``buildSystemPrompt`` in ``commander.ts`` writes, and a first user message
``Begin your mission: <scenario>``.

:func:`load` reads all of it. :meth:`Checkout.system_prompt` fills the client's template
as the client does: the scenario text, the guide, the account (Zoea's ``{{ACCOUNT}}``,
which points at the state message: the router logs the pilot in), the list of game
commands and an empty TODO list; :meth:`Checkout.task` is the first user message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

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
