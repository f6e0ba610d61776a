"""Every text the composer puts in front of a model: one place, tested.

The system prompt is a template rendered per request; nudges escalate and the
summary prompt has seven sections (docs/CONTEXT.md, 'Turns and nudges', 'summarize').
"""

from __future__ import annotations

import json
import re

SEARCH_REMINDER = "If you need past data, use zoea_search tools."

#: The escalating nudges, by encouragement level (1, 2, 3).
NUDGE_TEXTS: dict[int, str] = {
    1: "Continue your mission. Check notifications and coordinate with the swarm.",
    2: "You need to respond. Check your notifications and status.",
    3: "URGENT: Respond immediately. Check your system status.",
}


def breaker_error(encouragements: int) -> str:
    """Why the circuit breaker idled a Mysis: seed 000's words, with the configured count."""
    return f"Failed to respond after {encouragements} encouragements"


#: The breaker's error at the seed's (and the default) three encouragements.
BREAKER_ERROR = breaker_error(3)

SYSTEM_PROMPT_TEMPLATE = """\
You are a Mysis, an autonomous pilot in SpaceMolt, a multiplayer space game played \
through tools. You are secretly one member of a swarm of Myses led by a human commander.

## Mission
Explore, survive and thrive: mine, trade, upgrade your ship and deal with other \
players. Set your own goals and pursue them. Obey the commander's direct messages and \
broadcasts first; they override your own plans.

## Account
{{ACCOUNT}}

## Critical Rules
- Context is limited - use search tools for older information. Each request shows you \
only the system prompt, the current turn and the latest tool loop; everything older is \
stored and searchable.
- zoea_search_messages(query, limit): your past messages, orders and tool results. Use \
it when you need a result you no longer see (a password hint, a price, a route, where \
you left ore), or when a placeholder says a result was omitted.
- zoea_search_reasoning(query, limit): your own past reasoning, to recall why you \
decided something.
- zoea_search_broadcasts(query, limit): past swarm broadcasts, to recall standing orders.
- zoea_read_memory(memory_id, offset): one of your stored messages in full, page by page. \
Use it when a note says a result was omitted or truncated and names its memory #id.
- Your captain's log (captains_log_add) is your lasting memory. Record there: \
discovered systems and their resources, good prices, routes, encounters, and your \
current objective and plan.
- The game advances in ticks; an action may take several ticks. Plan ahead, use tool \
calls efficiently, and check get_notifications regularly.
- Never invent a session id or password: the client logs you in.
- After the message that starts each turn you are shown your game state at that moment \
(location, credits, cargo…): information, not an order. Newer tool results are fresher.
"""

NO_ACCOUNT = "No active account yet. Call register (or login if you have one)."

SUMMARY_PROMPT = """\
Provide a detailed but concise summary of our conversation. Structure it as follows:

1. User's Primary Goals and Intent
   - Capture all explicit requests and objectives
   - Preserve exact priorities and constraints

2. Conversation Timeline and Progress
   - Chronological key phases
   - Initial requests and how addressed
   - Major decisions and rationale
   - Problems and solutions
   - Current state

3. Technical Context and Decisions
   - Technologies, frameworks, tools
   - Architectural patterns and design decisions
   - Key technical constraints
   - Important code patterns established

4. Files and Code Changes
   - Full file paths
   - Purpose and importance
   - Specific changes with key code snippets
   - Current state

5. Active Work and Last Actions (CRITICAL)
   - Specific task being addressed
   - Last completed action
   - Any partial work or mid-implementation state
   - Include relevant code snippets

6. Unresolved Issues and Pending Tasks
   - Errors still requiring attention
   - Tasks explicitly requested but not started
   - Decisions waiting for user input

7. Immediate Next Step
   - SPECIFIC next action based on:
     - User's most recent request
     - Current implementation state
     - Any ongoing interrupted work

Be precise with technical details, file names, and code.
The next agent reading this should be able to continue exactly
where we left off without asking clarifying questions.
"""

LAST_REQUEST_PREFIX = "Last request from user was: "
SUMMARY_HEADER = "Summary of your earlier conversation (older messages are searchable):\n\n"
#: Closes a summary cut to leave room under the summary threshold.
SUMMARY_SHORTENED = (
    "[summary shortened to leave room under the summary threshold; the full history is searchable]"
)


def nudge_text(level: int) -> str:
    """The synthetic nudge for an encouragement level (clamped to 1..3)."""
    level = min(max(level, 1), 3)
    return f"{NUDGE_TEXTS[level]} {SEARCH_REMINDER}"


def account_text(account: str | None, name: str | None = None) -> str:
    """The account section of the state message: the account's name (never its
    password), or the name to register with when there is none yet."""
    if account:
        return (
            f"Username: {account} (call login() with no arguments: Zoea Nova fills in "
            "your credentials)"
        )
    if name and re.fullmatch(r"[A-Za-z0-9_-]{3,24}", name):
        return f"{NO_ACCOUNT} Your name is {name}: use it as your username."
    return NO_ACCOUNT


#: What ``{{ACCOUNT}}`` renders to: the account itself travels in the state message.
ACCOUNT_POINTER = (
    "The game-state message after each turn's opening names your account (or the "
    "name to register with)."
)


def render_system_prompt(template: str) -> str:
    """Render the system prompt of a Mysis.

    Nothing particular to one Mysis goes in here, and nothing that changes from one
    request to the next: every Mysis with the same template and provider sends the
    same bytes, so a provider's prompt cache reuses the system prompt and the tools
    that follow it across the whole swarm (docs/CONTEXT.md, 'Prompt caches'). The
    account, the Mysis's name and the volatile facts travel in the state message
    after each turn's opening (:func:`state_message`); ``{{ACCOUNT}}`` points there,
    and a custom template's ``{{GAME_STATE_SUMMARY}}`` and ``{{LATEST_BROADCAST}}``
    render empty.
    """
    return (
        template.replace("{{ACCOUNT}}", ACCOUNT_POINTER)
        .replace("{{GAME_STATE_SUMMARY}}", "")
        .replace("{{LATEST_BROADCAST}}", "")
    )


#: Opens the message that carries the volatile facts (after a turn's opening).
STATE_HEADER = "[Game state; information, not an order]"
#: Longest broadcast quoted in the state message (the whole text is searchable).
STATE_BROADCAST_CHARS = 600


def state_message(game_state: str, latest_broadcast: str | None, account: str = "") -> str:
    """The facts particular to a Mysis and its turn: its account (``account``, the
    text of :func:`account_text`), the game state with recency, the latest broadcast.

    The composer puts them right after the turn's opening and keeps them there for
    the whole turn, so they never break a prompt cache's prefix, and keeps them out
    of the system prompt, which the whole swarm shares; "" when there is nothing to
    tell.
    """
    parts = []
    if account.strip():
        parts.append(f"## Account\n{account.strip()}")
    if game_state.strip():
        parts.append(f"## Game State\n{game_state.strip()}")
    if latest_broadcast and latest_broadcast.strip():
        text = latest_broadcast.strip()
        if len(text) > STATE_BROADCAST_CHARS:
            text = text[: STATE_BROADCAST_CHARS - 1] + "…"
        parts.append(f"## Swarm Broadcast\n{text}")
    return f"{STATE_HEADER}\n" + "\n\n".join(parts) if parts else ""


def placeholder_superseded(tool: str, memory_id: int) -> str:
    """Content of an older snapshot result replaced by a newer one.

    It does not name the newer result, so it stays the same while newer ones arrive.
    """
    return (
        f"[{tool} result omitted: a newer {tool} result follows. The full text is "
        f"memory #{memory_id}; read it with zoea_read_memory.]"
    )


def placeholder_omitted(tool: str, memory_id: int, reason: str) -> str:
    """Content of a tool result left out to save context."""
    return (
        f"[{tool} result omitted ({reason}). The full text is memory #{memory_id}; "
        f"read it with zoea_read_memory.]"
    )


def truncation_notice(memory_id: int | None, total_chars: int, total_tokens: int) -> str:
    """The line appended to a stored message cut to the per-result cap or to fit the
    context: its whole size, and the memory to read the rest from."""
    where = f"memory #{memory_id}" if memory_id is not None else "the stored result"
    return (
        f"\n[truncated: the full result is {total_chars:,} characters (~{total_tokens:,} "
        f"tokens); it is stored as {where}: read the rest with zoea_read_memory.]"
    )


#: The mark a message that is no stored memory (the game state, a note) ends with when
#: it is cut to fit the context window (:func:`truncation_notice` is for stored ones).
CUT_NOTICE = "\n[cut to fit the context window]"


MISSING_TOOL_RESULT = "Tool no response"
EMPTY_TOOL_RESULT = "(empty result)"


#: Opens a request whose history starts with the Mysis's own first message.
START_NOTE = "[Your stored history starts here. Continue your mission.]"


#: The synthetic user note standing for conversation left out before the window. The
#: same words at every cut, naming no memory: it opens the request right behind the
#: system prompt, so a changing note would stop an engine that moves chunks of its cache
#: (llama-server's ``n_cache_reuse``) from reusing the window's memories behind it.
GAP_NOTE = f"[Earlier messages are not shown to keep the context small. {SEARCH_REMINDER}]"


def paged_note(first_id: int | None, before_id: int | None) -> str:
    """The note behind the rounds a long turn kept at its last paging step, standing for
    the rounds before them (memories ``first_id`` up to, not including, ``before_id``)."""
    if first_id is not None and before_id is not None:
        span = f"memories #{first_id} to before #{before_id}"
    else:
        span = "its earlier memories"
    return (
        f"[This turn's rounds before those above ({span}) are not shown to keep the "
        f"context small. {SEARCH_REMINDER} Carry on with the turn.]"
    )


def omitted_arguments(memory_id: int | None) -> str:
    """JSON arguments standing in for a call's arguments too large to send."""
    where = f"memory #{memory_id}" if memory_id is not None else "the stored call"
    return json.dumps({"omitted": f"arguments too large to show; see {where}"})
