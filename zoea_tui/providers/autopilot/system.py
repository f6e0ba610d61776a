"""What the autopilot reads in the rendered system prompt and the game-state message.

The ``## Account``, ``## Game State`` and ``## Swarm Broadcast`` sections of the
state message that follows each turn's opening (read after the system prompt, whose
own ``## Account`` section only points there, see ``context.split_state``) are split
once per distinct text: they change rarely between requests, so the parse is cached.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import lru_cache

from ...core import prompts

_USERNAME = re.compile(r"\busername\s*[:=]\s*([^\s,;]+)", re.IGNORECASE)
_LOGGED_AS = re.compile(r"^\s*-\s*Logged in as:\s*(\S+)\s*$", re.MULTILINE)
_NAME_IS = re.compile(r"\byour name is\s+\"?([A-Za-z0-9_\-]{3,24})", re.IGNORECASE)
_LOCATION = re.compile(r"^\s*-\s*Last known location:\s*(.+?)\s*$", re.MULTILINE)
#: ``- Label: value (3 ticks ago)`` or ``- path.to.key: value`` lines of the projection.
_STATE_LINE = re.compile(
    r"^\s*-?\s*([A-Za-z][A-Za-z0-9_.\[\] ]*?)\s*[:=]\s*(.+?)\s*$", re.MULTILINE
)
_AGE = re.compile(r"\s*\((now|(\d+) ticks? ago)\)$")
_PAIR = re.compile(r"^(-?\d+)\s*/\s*(\d+)")
#: Keys of the projection the autopilot falls back on, by their last word.
_STATE_KEYS = frozenset(
    {
        "current_system",
        "current_poi",
        "docked_at_base",
        "docked",
        "fuel",
        "max_fuel",
        "hull",
        "max_hull",
        "credits",
        "cargo_used",
        "cargo_capacity",
        "location",
        "cargo",
        "hold",
        "game_tick",
    }
)


@dataclass(frozen=True, slots=True)
class SystemInfo:
    """The facts of one rendered system prompt."""

    #: The assigned account name, or None when the prompt says there is none.
    account: str | None = None
    #: A name offered for registration ("Your name is X"), if any.
    name_hint: str | None = None
    #: The latest commander broadcast shown in the prompt.
    broadcast: str | None = None
    #: Fallback facts from the game-state projection and the pinned state block.
    state: dict[str, str] = field(default_factory=dict)
    #: How many ticks ago the projection saw each fact of ``state`` (absent: not said).
    ages: dict[str, int] = field(default_factory=dict)
    #: The pinned state block shows a session id (a login happened).
    session_hint: bool = False
    #: A stable short digest of the prompt's fixed part (for a derived username).
    digest: str = ""


def _sections(text: str) -> dict[str, str]:
    sections: dict[str, str] = {}
    title = ""
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("## "):
            sections[title] = "\n".join(lines).strip()
            title, lines = line[3:].strip(), []
        else:
            lines.append(line)
    sections[title] = "\n".join(lines).strip()
    return sections


def _account(section: str) -> str | None:
    if not section or section.startswith(prompts.NO_ACCOUNT[:20]):
        return None
    found = _USERNAME.search(section)
    if found:
        return found.group(1).rstrip(".")
    first = section.split()[0].rstrip(".") if section.split() else ""
    return first if len(section.split()) == 1 and first else None


def _game_state(text: str) -> tuple[dict[str, str], dict[str, int]]:
    """The projection's facts as ``current_poi``, ``fuel``, ``max_fuel``… (strings), and
    how many ticks ago each was seen (when the line says so).

    Reads the game-state cache's labels (``Location: sol / main_belt``,
    ``Fuel: 80/100``, ``Cargo: 30/50``, ``Hold: iron_ore x20``, ``Docked: no``)
    and flattened ``- player.current_poi: main_belt`` lines alike. ``hold_fresh``
    says the hold was seen at the newest tick.
    """
    state: dict[str, str] = {}
    ages: dict[str, int] = {}
    for key, raw in _STATE_LINE.findall(text):
        name = key.rsplit(".", 1)[-1].strip().lower().replace(" ", "_")
        if name not in _STATE_KEYS or name in state:
            continue
        age = _AGE.search(raw)
        value = raw[: age.start()].strip() if age else raw
        pair = _PAIR.match(value)
        keys: tuple[str, ...] = (name,)
        if name == "location":
            parts = [p.strip() for p in value.split(" / ")]
            if len(parts) == 2:
                state.setdefault("current_system", parts[0])
            state.setdefault("current_poi", parts[-1])
            keys = ("current_system", "current_poi")
        elif name in ("fuel", "hull") and pair:
            state[name], state[f"max_{name}"] = pair.groups()
            keys = (name, f"max_{name}")
        elif name == "cargo" and pair:
            state["cargo_used"], state["cargo_capacity"] = pair.groups()
            keys = ("cargo_used", "cargo_capacity")
        elif name == "docked":
            state["docked"] = "true" if value.lower() in ("yes", "true") else "false"
        elif name == "hold":
            state["hold"] = value
            if age and age.group(1) == "now":
                state["hold_fresh"] = "true"
        else:
            state[name] = value
        if age:
            for one in keys:
                ages.setdefault(one, int(age.group(2) or 0))
    return state, ages


@lru_cache(maxsize=256)
def read_system(text: str) -> SystemInfo:
    """Parse a rendered system prompt (cached per distinct text)."""
    sections = _sections(text)
    account_text = sections.get("Account", "")
    session = next(
        (body for title, body in sections.items() if title.startswith("Session State")), ""
    )
    account = _account(account_text)
    if account is None and session:
        found = _LOGGED_AS.search(session)
        account = found.group(1) if found else None
    hint = _NAME_IS.search(text)
    state, ages = _game_state(sections.get("Game State", ""))
    where = _LOCATION.search(session)
    if where:
        place = where.group(1)
        docked = place.endswith("(docked)")
        place = place.removesuffix("(docked)").removesuffix("(undocked)").strip()
        parts = [p.strip() for p in place.split("/")]
        if len(parts) == 2:
            state["current_system"], state["current_poi"] = parts
        elif parts and parts[0]:
            state.setdefault("current_poi", parts[0])
        if "(docked)" in where.group(1) or "(undocked)" in where.group(1):
            state["docked"] = "true" if docked else "false"
    fixed = text.split("## Account", 1)[0]
    return SystemInfo(
        account=account,
        name_hint=hint.group(1) if hint else None,
        broadcast=sections.get("Swarm Broadcast") or None,
        state=state,
        ages=ages,
        session_hint="session_id:" in session,
        digest=hashlib.blake2b(fixed.encode(), digest_size=4).hexdigest(),
    )
