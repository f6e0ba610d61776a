"""Commander orders in plain words: what the autopilot understands, and how long each lasts.

An order is read from the newest commander text that holds one (direct
messages, broadcasts, the "Last request" line of a summary, else the
Swarm Broadcast section of the game-state message). A text without a recognised
order replaces nothing. The earliest keyword in a text decides ("Mine ore and
sell it" is a mining order; "Stop mining" is a hold).

How long an order lasts is written here, in :data:`LIFETIMES`, and nowhere else
(:func:`in_force` applies it; ``context.py`` reads the orders with it):

- ``standing`` (hold, mine, goto and the scenario orders): in force until a newer
  order replaces it. A hold holds until then.
- ``answer`` (report): carried out by one answer, in the turn its message opened.
  Once I answered it, or once a later turn began, it is done and the standing
  order is in force again (a strategy that pins the commander's message in every
  request shows it long after: the state message's place says which turn it
  opened, ``context.turn_opening``).
- ``once`` (sell, refuel): carried out by one successful action after it; then the
  standing order is in force again. Until then my notes carry it (``doing``), as its
  message may leave my context on the way to the station. While it is in force with
  nothing left to do (an empty hold, a full tank), the planner does the standing
  order's work (``decide._Planner.act``; a hold's is holding).

Where the standing order is read, first found first: a commander message in view,
or the orders a summary keeps (its newest standing one); my notes; the Swarm
Broadcast section; else the default mission, mine and sell (``DEFAULT_ORDER``).

My notes carry the standing order when the Swarm Broadcast section would not give it
back: every answer with calls has it in its notes line, and every turn carries it in
one, a turn that would end with a text only (a hold, a report, a parked ship) checking
its status first (``decide._Planner.plan``). A strategy keeps only the latest tool
loop of earlier turns, any strategy's window lets older memories go, so an order
written once scrolls out of view: written each turn, it never does. A hold is also
noted once in the captain's log, for the commander.

The Swarm Broadcast section repeats the latest broadcast in every request, long
after it was sent, and a summary's "Last request" line the last commander message:
only their standing order is read from them. A broadcast reached
every listening Mysis as a message when it was sent, and a report or a sale it
asked for was carried out then; a Mysis created or relaunched later takes up the
swarm's standing order and nothing else.
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
Lifetime = Literal["standing", "answer", "once"]

#: How long each order lasts (see the module's docstring): the one place of the rule.
LIFETIMES: dict[OrderKind, Lifetime] = {
    "mine": "standing",
    "hold": "standing",
    "goto": "standing",
    "explore": "standing",
    "social": "standing",
    "missions": "standing",
    "trade": "standing",
    "combat": "standing",
    "report": "answer",
    "sell": "once",
    "refuel": "once",
}

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


def lifetime(kind: OrderKind) -> Lifetime:
    """How long an order of ``kind`` lasts (:data:`LIFETIMES`)."""
    return LIFETIMES[kind]


def in_force(order: Order, *, turn_start: int, answered: bool, done: bool) -> bool:
    """Whether a commander order is still to be carried out.

    ``turn_start`` is the index of the current turn's first message, ``answered``
    whether a text answer of mine follows the order's message, ``done`` whether an
    action after it carried it out (a sale for ``sell``, a refuel for ``refuel``).
    An order from the Swarm Broadcast section (index -1) was carried out when its
    message arrived, unless it is a standing one.
    """
    kind = lifetime(order.kind)
    if kind == "standing":
        return True
    if order.index < 0:
        return False
    if kind == "answer":
        return not answered and order.index >= turn_start
    return not done


#: Longest order text my notes carry.
NOTE_CHARS = 200


def same_order(a: Order, b: Order) -> bool:
    """The same standing order (kind and destination), whatever its words."""
    return (a.kind, normalize_name(a.target), a.system) == (
        b.kind,
        normalize_name(b.target),
        b.system,
    )


def order_note(order: Order) -> str:
    """The order's words as my notes carry them: one line, no double quote."""
    text = " ".join(order.text.replace('"', "'").split())
    return text if len(text) <= NOTE_CHARS else text[: NOTE_CHARS - 1] + "…"


def normalize_name(text: str) -> str:
    """Lowercase words of a place name or id, for matching ("Main Belt" = "main_belt")."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())
