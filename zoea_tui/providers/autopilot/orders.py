"""Commander orders in plain words: what the autopilot understands.

An order is read from the newest commander text that holds one (direct
messages, broadcasts, the "Last request" line of a summary, else the
Swarm Broadcast section of the game-state message). Orders stand until a newer order
replaces them; a text without a recognised order replaces nothing. The
earliest keyword in a text decides ("Mine ore and sell it" is a mining
order; "Stop mining" is a hold).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

OrderKind = Literal[
    "mine",
    "sell",
    "refuel",
    "goto",
    "report",
    "hold",
    "explore",
    "social",
    "missions",
    "trade",
    "combat",
]

_PATTERNS: tuple[tuple[OrderKind, re.Pattern[str]], ...] = (
    # The arena's scenario orders, in its own words or in SMBench's scenario files
    # (``zoea arena --smbench``); a tie goes to the earlier pattern.
    ("explore", re.compile(r"\b(?:explore|exploring|exploration)\b")),
    (
        "social",
        re.compile(
            r"\b(?:socialise|socialize|socialising|socializing|socially"
            r"|social\s+(?:intelligence|presence))\b"
        ),
    ),
    (
        "missions",
        re.compile(
            r"\b(?:(?:run|take|do)\s+missions|mission\s+runner"
            r"|complete\s+(?:as\s+many\s+)?missions)\b"
        ),
    ),
    ("trade", re.compile(r"\btrade\s+for\s+profit\b")),
    (
        "combat",
        re.compile(
            r"\b(?:hunt\s+pirates|combat\s+readiness|survive\s+combat"
            r"|(?:defeat|destroy|fight|attack)\s+(?:(?:at\s+least\s+one|a|the|some)\s+)?pirates?)\b"
        ),
    ),
    ("hold", re.compile(r"\b(?:hold|stop|halt|wait|pause|stand\s*by|stay\s+put|cease|freeze)\b")),
    ("report", re.compile(r"\b(?:report|status|where\s+are\s+you|how\s+are\s+you)\b")),
    (
        "goto",
        re.compile(
            r"\b(?P<verb>go|travel|fly|head|move|navigate|jump|return|proceed|set\s+course)\s+"
            r"(?:back\s+|over\s+)?(?:to|for|towards?)\b(?P<target>[^.;!?\n]*)"
        ),
    ),
    ("goto", re.compile(r"\b(?P<target>dock)\b")),
    ("sell", re.compile(r"\b(?:sell|unload|trade)\b")),
    ("refuel", re.compile(r"\b(?:refuel|repair)\b")),
    ("mine", re.compile(r"\b(?:mine|mining|dig|harvest|gather)\b")),
)
_TARGET_END = re.compile(r"\s*(?:,|\band\b|\bthen\b|\bto\s+(?:mine|sell)\b).*$")
_ARTICLE = re.compile(r"^\s*(?:the|a|an)\s+")


@dataclass(frozen=True, slots=True)
class Order:
    """A commander order: its kind, its destination for ``goto``, and where it came from."""

    kind: OrderKind
    target: str = ""
    text: str = ""
    #: Index of the message holding it (-1: the system prompt's broadcast section).
    index: int = -1
    #: The destination is a system ("jump to ...").
    system: bool = False


DEFAULT_ORDER = Order("mine", text="(no order: default mission, mine and sell)")


def parse_order(text: str, index: int = -1) -> Order | None:
    """The order in a commander text, or None when it holds no recognised order."""
    lowered = text.lower()
    best: tuple[int, OrderKind, str, bool] | None = None
    for kind, pattern in _PATTERNS:
        found = pattern.search(lowered)
        if found and (best is None or found.start() < best[0]):
            groups = found.groupdict()
            best = (found.start(), kind, groups.get("target") or "", groups.get("verb") == "jump")
    if best is None:
        if lowered.rstrip().endswith("?"):
            return Order("report", text=text, index=index)
        return None
    _, kind, target, jump = best
    if kind == "goto":
        target = _ARTICLE.sub("", _TARGET_END.sub("", target)).strip(" '\"")
        if target == "dock":
            target = "station"
        if not target:
            return None
    return Order(kind, target, text, index, system=jump)


def normalize_name(text: str) -> str:
    """Lowercase words of a place name or id, for matching ("Main Belt" = "main_belt")."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())
