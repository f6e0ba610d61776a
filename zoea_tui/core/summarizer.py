"""Summaries for the ``summarize`` strategy.

The summary call goes through the small :class:`Summarizer` interface; a
provider implements it with the Mysis's model. :class:`ExtractiveSummarizer`
is the deterministic stand-in used by the autopilot and whenever no model is
available: it writes the seven sections of the summary prompt (docs/CONTEXT.md,
'summarize') from the messages alone and says plainly that no language model wrote it.

What it keeps is what a pilot taking over would need: the commander's orders (never
the summary prompt or a nudge), the account and where the ship is (credits, fuel,
hull, cargo: the newest value of each), what was decided (the Mysis's own texts, never
the "Understood." the history cleaning adds) and done (each call with what came of it),
the captain's log entries, the errors not yet resolved, and the next step. An earlier
summary in the history is folded in, section by section, so a chain of summaries
loses nothing the first one held: its orders, facts and totals carry over, newer
values replace older ones.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from . import prompts
from .composition import SummaryRequest
from .tokens import count_tokens
from .validator import json_object

EXTRACTIVE_LABEL = (
    "(Extractive summary written by Zoea Nova's rule-based summarizer, not by a language model.)"
)

#: The section titles of the summary prompt, in order.
SECTIONS = (
    "User's Primary Goals and Intent",
    "Conversation Timeline and Progress",
    "Technical Context and Decisions",
    "Files and Code Changes",
    "Active Work and Last Actions (CRITICAL)",
    "Unresolved Issues and Pending Tasks",
    "Immediate Next Step",
)

#: How many entries of each list a summary keeps (the oldest order is always kept:
#: it is usually the mission).
MAX_ORDERS = 8
MAX_DECISIONS = 5
MAX_LOGS = 5
MAX_ACTIONS = 8
MAX_ERRORS = 5
#: Characters of one line of a summary (an order, a decision, an action).
LINE_CHARS = 200
#: Characters kept of an earlier summary that a model wrote (it cannot be parsed).
MODEL_SUMMARY_CHARS = 1500
#: The facts a summary keeps, in the order they are shown.
FACT_KEYS = ("Account", "Empire", "System", "Position", "Credits", "Fuel", "Hull", "Cargo")
#: Assistant texts that say nothing: acknowledgements, and the one the cleaning adds.
_ACKNOWLEDGEMENTS = frozenset(
    {"understood", "ok", "okay", "done", "noted", "roger", "acknowledged", "got it", "sure"}
)
#: Facts a successful call changes without stating their new value, and how.
_CHANGES: dict[str, tuple[tuple[str, ...], str]] = {
    "mine": (("Cargo",), "mining"),
    "sell": (("Cargo", "Credits"), "sales"),
    "buy": (("Cargo", "Credits"), "purchases"),
    "refuel": (("Fuel", "Credits"), "refuelling"),
    "repair": (("Hull", "Credits"), "repairs"),
    "travel": (("Fuel",), "trips"),
    "jump": (("Fuel",), "trips"),
}
_STALE = " (changed since by "
_SECTION = re.compile(r"^(\d)\. (.+)$")
_BULLET = re.compile(r"^ {3}- (.*)$")
_FACT = re.compile(r"^([A-Z][a-z]+): (.+)$")
_COUNTS = re.compile(r"^Covered: (\d+) messages, (\d+) tool calls(?:: (.*))?$")
_COUNT = re.compile(r"^(\S+) x(\d+)$")
_SUMMARIES = re.compile(r"^Summaries so far: (\d+)")
_MINED = re.compile(r"mined (\d+) ore")
_SOLD = re.compile(r"sold (\d+) units for (-?\d+) cr")


class Summarizer(Protocol):
    """Writes the structured summary of a cleaned history."""

    async def summarize(self, request: SummaryRequest) -> str:
        """The summary text (without the "Last request" line: the caller adds it)."""
        ...


class ExtractiveSummarizer:
    """Deterministic seven-section summary built from the messages themselves."""

    async def summarize(self, request: SummaryRequest) -> str:
        """Summarise ``request.messages`` without a model, within ``request.max_tokens``."""
        return extractive_summary(
            list(request.messages), request.last_request, max_tokens=request.max_tokens
        )


@dataclass(slots=True)
class Digest:
    """What a summary holds, section by section (parsed back to fold it into the next)."""

    orders: list[str] = field(default_factory=list)
    summaries: int = 0
    messages: int = 0
    calls: Counter[str] = field(default_factory=Counter)
    mined: int = 0
    sold_units: int = 0
    earned: int = 0
    #: Text of an earlier summary written by a model (kept as it is, cut).
    earlier_text: str = ""
    facts: dict[str, str] = field(default_factory=dict)
    decisions: list[str] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    #: (tool, error line) of calls that failed and have not succeeded since.
    errors: list[tuple[str, str]] = field(default_factory=list)
    next_step: str = ""


def extractive_summary(
    messages: Sequence[dict[str, Any]], last_request: str, *, max_tokens: int | None = None
) -> str:
    """The seven sections of the summary prompt, filled by extraction.

    ``messages`` is the cleaned history (OpenAI messages; the summary prompt at its end
    and an earlier summary at its start are recognised). With ``max_tokens`` the lists
    are shortened, oldest entries first, until the summary fits.
    """
    digest = digest_of(messages, last_request)
    text = render(digest)
    if max_tokens is None:
        return text
    for scale in (0.6, 0.4, 0.25, 0.0):
        if count_tokens(text) <= max_tokens:
            break
        text = render(digest, scale=scale)
    return text


def digest_of(messages: Sequence[dict[str, Any]], last_request: str) -> Digest:
    """Read the history (and fold in the earlier summary it opens with, if any)."""
    digest = Digest()
    names: dict[str, tuple[str, str]] = {}
    pending_errors: list[tuple[str, str]] = []
    counted = 0
    for message in messages:
        role = message.get("role")
        content = _text(message)
        if role == "system":
            continue
        if role == "user":
            stripped = content.strip()
            if stripped == prompts.SUMMARY_PROMPT.strip():
                continue
            if stripped.startswith(prompts.SUMMARY_HEADER.strip()):
                _fold(digest, parse_summary(stripped))
                continue
            counted += 1
            order = _order_text(stripped)
            if order is not None:
                _append_unique(digest.orders, _line(order))
            continue
        if role == "assistant":
            text = content.strip()
            calls = message.get("tool_calls") or ()
            if text and _is_acknowledgement(text) and not calls:
                continue  # says nothing (the cleaning's "Understood." among them)
            counted += 1
            if text and not _is_acknowledgement(text):
                _append_unique(digest.decisions, _line(text))
            for call in calls:
                fn = call.get("function") or {}
                name = str(fn.get("name") or "tool")
                arguments = str(fn.get("arguments") or "{}")
                digest.calls[name] += 1
                names[str(call.get("id") or "")] = (name, arguments)
                if name == "captains_log_add":
                    _append_unique(digest.logs, _line(_log_entry(arguments)))
            continue
        counted += 1
        if role != "tool":
            continue
        name, arguments = names.get(str(message.get("tool_call_id") or ""), ("tool", "{}"))
        data = json_object(content)
        error = _error_of(content, data)
        if error is not None:
            _append_action(digest.actions, _line(f"{_call_text(name, arguments)} → failed {error}"))
            pending_errors = [e for e in pending_errors if e[0] != name]
            pending_errors.append((name, _line(f"{name}: {error}")))
            continue
        if content.strip() == prompts.MISSING_TOOL_RESULT:
            _append_action(digest.actions, _line(f"{_call_text(name, arguments)} → no result"))
            continue
        _append_action(
            digest.actions, _line(f"{_call_text(name, arguments)} → {_outcome(name, data)}")
        )
        # A call that succeeded resolves its earlier failures.
        pending_errors = [e for e in pending_errors if e[0] != name]
        digest.errors = [e for e in digest.errors if e[0] != name]
        if data is not None:
            _progress(digest, name, data)
            found = _facts(name, data)
            keys, how = _CHANGES.get(name, ((), ""))
            for key in keys:
                if key in digest.facts and key not in found:
                    digest.facts[key] = _stale(digest.facts[key], how)
            digest.facts.update(found)
    digest.messages += counted
    digest.summaries += 1
    for name, line in pending_errors:
        digest.errors = [e for e in digest.errors if e[0] != name]
        digest.errors.append((name, line))
    if last_request.strip():
        digest.next_step = _line(last_request.strip())
        _append_unique(digest.orders, digest.next_step)
    return digest


def render(digest: Digest, *, scale: float = 1.0) -> str:
    """The summary text of a digest (``scale`` shortens every list)."""

    def newest(items: Sequence[str], cap: int) -> list[str]:
        keep = max(int(cap * scale), 1 if scale > 0 else 0)
        return list(items[-keep:]) if keep else []

    def bullets(lines: Iterable[str], empty: str) -> str:
        shown = [f"   - {line}" for line in lines]
        return "\n".join(shown) if shown else f"   - {empty}"

    orders = digest.orders
    cap = max(int(MAX_ORDERS * scale), 2)
    if len(orders) > cap:
        orders = [orders[0], *orders[len(orders) - cap + 1 :]] if cap > 1 else orders[-1:]
    timeline = [
        f"Summaries so far: {digest.summaries}"
        + (" (the earlier ones are folded into this one)" if digest.summaries > 1 else ""),
        f"Covered: {digest.messages} messages, {sum(digest.calls.values())} tool calls"
        + (
            ": " + ", ".join(f"{n} x{c}" for n, c in sorted(digest.calls.items()))
            if digest.calls
            else ""
        ),
    ]
    progress = []
    if digest.mined:
        progress.append(f"mined {digest.mined} ore")
    if digest.sold_units or digest.earned:
        progress.append(f"sold {digest.sold_units} units for {digest.earned} cr")
    if progress:
        timeline.append("Progress: " + "; ".join(progress))
    if digest.earlier_text and scale > 0:
        limit = int(MODEL_SUMMARY_CHARS * max(scale, 0.25))
        timeline.append("Earlier summary (written by a model): " + _cut(digest.earlier_text, limit))
    context = [f"{key}: {digest.facts[key]}" for key in FACT_KEYS if key in digest.facts]
    context += [f"Decision: {d}" for d in newest(digest.decisions, MAX_DECISIONS)]
    next_step = digest.next_step or "Continue the mission."
    if digest.decisions:
        next_step += f" (last stated plan: {digest.decisions[-1]})"
    sections = [
        bullets(orders, "(no orders yet)"),
        bullets(timeline, ""),
        bullets(context, "(nothing known yet)"),
        bullets((f"captain's log: {e}" for e in newest(digest.logs, MAX_LOGS)), "(no entries)"),
        bullets(newest(digest.actions, MAX_ACTIONS), "(no actions yet)"),
        bullets(newest([e[1] for e in digest.errors], MAX_ERRORS), "(no errors)"),
        bullets([_line(next_step, 2 * LINE_CHARS)], ""),
    ]
    body = [
        f"{n}. {title}\n{text}"
        for n, (title, text) in enumerate(zip(SECTIONS, sections, strict=True), 1)
    ]
    return "\n\n".join([EXTRACTIVE_LABEL, *body])


def parse_summary(text: str) -> Digest:
    """A stored summary read back into its digest.

    An extractive summary is read section by section; a summary a model wrote is kept
    as text. Either way its "Last request" line becomes an order.
    """
    body = text
    if body.startswith(prompts.SUMMARY_HEADER.strip()):
        body = body[len(prompts.SUMMARY_HEADER.strip()) :].strip()
    body, found, last = body.rpartition("\n" + prompts.LAST_REQUEST_PREFIX)
    if not found:
        body, last = body, ""
    digest = Digest()
    if not body.startswith(EXTRACTIVE_LABEL):
        digest.earlier_text = " ".join(body.split())
        digest.summaries = 1
        if last.strip():
            digest.orders.append(_line(last.strip()))
        return digest
    section = 0
    for raw in body.splitlines():
        header = _SECTION.match(raw)
        if header is not None:
            section = int(header.group(1))
            continue
        bullet = _BULLET.match(raw)
        if bullet is None or bullet.group(1).startswith("("):
            continue
        _read_line(digest, section, bullet.group(1))
    if last.strip():
        _append_unique(digest.orders, _line(last.strip()))
    return digest


def _read_line(digest: Digest, section: int, line: str) -> None:
    if section == 1:
        digest.orders.append(line)
    elif section == 2:
        _read_timeline(digest, line)
    elif section == 3:
        if line.startswith("Decision: "):
            digest.decisions.append(line[len("Decision: ") :])
        else:
            fact = _FACT.match(line)
            if fact is not None and fact.group(1) in FACT_KEYS:
                digest.facts[fact.group(1)] = fact.group(2)
    elif section == 4 and line.startswith("captain's log: "):
        digest.logs.append(line[len("captain's log: ") :])
    elif section == 5:
        digest.actions.append(line)
    elif section == 6:
        digest.errors.append((line.split(":", 1)[0], line))


def _read_timeline(digest: Digest, line: str) -> None:
    summaries = _SUMMARIES.match(line)
    if summaries is not None:
        digest.summaries = int(summaries.group(1))
        return
    counts = _COUNTS.match(line)
    if counts is not None:
        digest.messages = int(counts.group(1))
        for part in (counts.group(3) or "").split(", "):
            count = _COUNT.match(part.strip())
            if count is not None:
                digest.calls[count.group(1)] += int(count.group(2))
        return
    if line.startswith("Progress: "):
        mined, sold = _MINED.search(line), _SOLD.search(line)
        digest.mined = int(mined.group(1)) if mined else 0
        if sold:
            digest.sold_units, digest.earned = int(sold.group(1)), int(sold.group(2))
        return
    prefix = "Earlier summary (written by a model): "
    if line.startswith(prefix):
        digest.earlier_text = line[len(prefix) :]


def _fold(digest: Digest, earlier: Digest) -> None:
    """Put an earlier summary's content in front of what follows it."""
    digest.orders[:0] = [o for o in earlier.orders if o not in digest.orders]
    digest.summaries += earlier.summaries
    digest.messages += earlier.messages
    digest.calls.update(earlier.calls)
    digest.mined += earlier.mined
    digest.sold_units += earlier.sold_units
    digest.earned += earlier.earned
    digest.earlier_text = earlier.earlier_text or digest.earlier_text
    digest.facts = {**earlier.facts, **digest.facts}
    digest.decisions[:0] = earlier.decisions
    digest.logs[:0] = earlier.logs
    digest.actions[:0] = earlier.actions
    digest.errors[:0] = earlier.errors


# -- reading messages ---------------------------------------------------------------


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _order_text(text: str) -> str | None:
    """The commander's (or the swarm's) words in a user message; None for generated text."""
    if not text or text.startswith(tuple(prompts.NUDGE_TEXTS.values())):
        return None
    if text.startswith("[") and (text.endswith("]") or text.startswith(prompts.STATE_HEADER)):
        return None  # a note, a placeholder or the game-state message
    return text


def _is_acknowledgement(text: str) -> bool:
    return text.lower().strip(" .!") in _ACKNOWLEDGEMENTS


def _stale(fact: str, how: str) -> str:
    """A fact marked as changed since by ``how`` ("150 (changed since by sales, trips)")."""
    value, found, rest = fact.partition(_STALE)
    known = rest.rstrip(")").split(", ") if found else []
    if how not in known:
        known.append(how)
    return f"{value}{_STALE}{', '.join(known)})"


def _append_action(actions: list[str], line: str) -> None:
    """Append an action; a repeat of the one before is counted instead ("(x3)")."""
    if actions:
        base, _, count = actions[-1].partition(" (x")
        if base == line and (not count or count[:-1].isdigit()):
            actions[-1] = f"{line} (x{int(count[:-1]) + 1 if count else 2})"
            return
    actions.append(line)


def _append_unique(items: list[str], item: str) -> None:
    """Append ``item``, moving it to the end if it is already there."""
    if item in items:
        items.remove(item)
    items.append(item)


def _line(text: str, limit: int = LINE_CHARS) -> str:
    return _cut(" ".join(text.split()), limit)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _error_of(content: str, data: dict[str, Any] | None) -> str | None:
    text = content.strip()
    if data is not None:
        err = data.get("error")
        if isinstance(err, dict):
            return f"[{err.get('code', 'error')}] {_line(str(err.get('message', '')), 120)}"
        return None
    if text.lower().startswith("error"):
        return _line(text, 120)
    return None


def _log_entry(arguments: str) -> str:
    data = json_object(arguments)
    entry = data.get("entry") if data is not None else None
    return entry if isinstance(entry, str) else arguments


def _call_text(name: str, arguments: str) -> str:
    data = json_object(arguments)
    if data is None:
        return f"{name}()" if arguments.strip() in ("", "{}") else f"{name}({_line(arguments, 60)})"
    shown = ", ".join(
        f"{k}={_line(v if isinstance(v, str) else json.dumps(v), 40)}"
        for k, v in data.items()
        if k != "entry"
    )
    return f"{name}({shown})"


def _outcome(name: str, data: dict[str, Any] | None) -> str:
    """What came of a call, in a few words."""
    if data is None:
        return "done (result not in JSON)"
    if name == "mine" and isinstance(data.get("quantity"), int):
        return f"mined {data.get('resource_id') or 'ore'} x{data['quantity']}"
    if name == "sell" and isinstance(data.get("quantity_sold"), int):
        item = data.get("item_id") or "cargo"
        return f"sold {item} x{data['quantity_sold']} for {data.get('total_earned', '?')} cr"
    if name in ("travel", "jump"):
        where = data.get("poi_id") or data.get("system_id") or data.get("destination_id")
        return f"arrived at {where}" if where else "under way"
    if name in ("register", "login"):
        player = _dict(data.get("player"))
        user = data.get("username") or player.get("username")
        return f"logged in as {user}" if user else "logged in"
    message = data.get("message")
    if isinstance(message, str) and message.strip():
        return _line(message, 80)
    return "ok"


def _progress(digest: Digest, name: str, data: dict[str, Any]) -> None:
    if name == "mine" and isinstance(data.get("quantity"), int):
        digest.mined += data["quantity"]
    elif name == "sell":
        sold, earned = data.get("quantity_sold"), data.get("total_earned")
        digest.sold_units += sold if isinstance(sold, int) else 0
        digest.earned += earned if isinstance(earned, int) else 0


def _facts(name: str, data: dict[str, Any]) -> dict[str, str]:
    """The account and position facts a result states (the newest value of each wins)."""
    facts: dict[str, str] = {}
    player = _dict(data.get("player"))
    ship = _dict(data.get("ship"))
    if name in ("register", "login", "get_status"):
        user = player.get("username") or data.get("username")
        if isinstance(user, str) and user:
            facts["Account"] = user
        empire = player.get("empire") or data.get("empire")
        if isinstance(empire, str) and empire:
            facts["Empire"] = empire
    credits = player.get("credits", data.get("credits"))
    if isinstance(credits, int) and not isinstance(credits, bool):
        facts["Credits"] = str(credits)
    system = player.get("current_system") or (data.get("system_id") if name == "jump" else None)
    if isinstance(system, str) and system:
        facts["System"] = system
    poi = player.get("current_poi") or (
        data.get("poi_id") if name == "travel" and data.get("poi_id") else None
    )
    if isinstance(poi, str) and poi:
        docked = player.get("docked_at_base")
        facts["Position"] = f"{poi} (docked)" if docked else f"{poi} (undocked)"
        if name == "travel":
            facts["Position"] = f"{poi} (undocked)"
    elif name == "dock" and "Position" not in facts:
        facts["Position"] = "docked at a station"
    for key, value, top in (("Fuel", "fuel", "max_fuel"), ("Hull", "hull", "max_hull")):
        if isinstance(ship.get(value), int):
            facts[key] = f"{ship[value]}/{ship.get(top, '?')}"
    used = ship.get("cargo_used", data.get("used") if name == "get_cargo" else None)
    capacity = ship.get("cargo_capacity", data.get("capacity") if name == "get_cargo" else None)
    items = ship.get("cargo", data.get("cargo") if name == "get_cargo" else None)
    if isinstance(used, int):
        cargo = f"{used}/{capacity if isinstance(capacity, int) else '?'}"
        if isinstance(items, list):
            listed = [
                f"{i.get('item_id')} x{i.get('quantity')}"
                for i in items
                if isinstance(i, dict) and i.get("item_id")
            ]
            cargo += f" ({', '.join(listed) if listed else 'empty'})"
        facts["Cargo"] = cargo
    return facts
