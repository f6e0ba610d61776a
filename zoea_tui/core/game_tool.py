"""The compact ``game`` tool: one tool for every game command (``tools = "compact"``).

A provider configured ``tools = "compact"`` is offered the ``zoea_*`` tools and one
``game(command, args)`` tool instead of a schema per game command (79 schemas are
about 5 800 tokens, in every request; tests/docs/test_doc_figures.py keeps the docs'
figures to what this module and the world give). The commands and their arguments are stated
once, one short line each, in the ``game`` tool's description (:func:`game_tool`).

A stored or composed call named ``game`` runs the command its arguments name:
everything that interprets a call by its tool's name (activity labels, the tool
result's stored name, the game-state cache, the autopilot) asks
:func:`effective_call` or :func:`effective` for the command and its arguments, here
and nowhere else.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, Literal, TypeVar

from .composition import ContextTooSmallError
from .types import ToolCall

#: How one request carries the game's tools (the router's modes).
ToolsMode = Literal["full", "compact"]
TOOLS_MODES: tuple[ToolsMode, ...] = ("full", "compact")
#: The ``[providers.NAME] tools`` setting: a mode, or ``"auto"`` (:func:`tools_modes`).
ToolsSetting = Literal["auto", "full", "compact"]
TOOLS_SETTINGS: tuple[ToolsSetting, ...] = ("auto", "full", "compact")

_T = TypeVar("_T")


def tools_modes(setting: ToolsSetting, *, fell_back: bool = False) -> tuple[ToolsMode, ...]:
    """The modes a request tries, in order: the first whose least request fits the
    context is sent, and when none fits the last one's error stands.

    ``"auto"`` tries the full schemas, then the compact ones; once a Mysis ``fell_back``
    to compact it stays there until its engine changes (a flip back would throw away the
    server's prompt cache of every request's head). An explicit mode is the only one
    tried.
    """
    if setting == "auto":
        return ("compact",) if fell_back else ("full", "compact")
    return (setting,)


async def with_fitting_tools(
    setting: ToolsSetting,
    attempt: Callable[[ToolsMode], Awaitable[_T]],
    *,
    fell_back: bool = False,
) -> tuple[_T, ToolsMode]:
    """``attempt`` under the modes of :func:`tools_modes`, with the mode that fitted.

    ``attempt`` raises :class:`~.composition.ContextTooSmallError` when the least request
    of its mode does not fit; the last mode's error is raised. The runtime, the live
    preview and the arena's estimate choose the tools by this rule and no other.
    """
    modes = tools_modes(setting, fell_back=fell_back)
    for mode in modes[:-1]:
        try:
            return await attempt(mode), mode
        except ContextTooSmallError:
            continue
    return await attempt(modes[-1]), modes[-1]


#: The game commands that only read the pilot's status, ship and place, in the order a
#: reader takes them in: the game-state cache's and the autopilot's lists start from it.
STATE_READS: tuple[str, ...] = (
    "get_status",
    "get_ship",
    "get_cargo",
    "get_system",
    "get_poi",
    "get_nearby",
)

#: The name of the one tool of the compact mode.
GAME_TOOL = "game"

_GUIDE_START = "Commands: "
#: A command of the guide: its name right before its parenthesis.
_COMMAND = re.compile(r"(?:^|\s)([a-z][a-z0-9_]*)\(")

GAME_TOOL_HEAD = (
    "Run a SpaceMolt game command: command is its name, args a JSON object of its "
    "arguments ({} if none). Below, x? is optional, x:int a whole number, x:bool true or "
    'false, x:list a JSON list, x:a|b one of these. E.g. command "travel", args '
    '{"target_poi": "main_belt"}. '
)

GAME_TOOL_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"command": {"type": "string"}, "args": {"type": "object"}},
    "required": ["command"],
}


class GameCallError(ValueError):
    """The arguments of a ``game`` call do not name a command and its arguments."""


def game_command(arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The command and the arguments a ``game`` call's arguments name.

    ``args`` may be left out (no arguments), or given as a JSON object in a string (as
    some models send it); when it is left out, any other key beside ``command`` is
    taken as an argument. Raises :class:`GameCallError`, with a message for the model,
    when the command is missing or the arguments are not an object.
    """
    command = arguments.get("command")
    if not isinstance(command, str) or not command.strip():
        raise GameCallError(
            "command is required: the name of a game command, e.g. "
            '{"command": "get_status", "args": {}}.'
        )
    if "args" not in arguments:
        return command.strip(), {k: v for k, v in arguments.items() if k != "command"}
    args = arguments["args"]
    if args is None:
        args = {}
    elif isinstance(args, str):
        with contextlib.suppress(ValueError):  # not JSON: reported below, as it is
            args = json.loads(args) if args.strip() else {}
    if not isinstance(args, dict):
        shown = json.dumps(args, ensure_ascii=False)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise GameCallError(
            f"args must be a JSON object of the command's arguments, e.g. "
            f'{{"target_poi": "main_belt"}} or {{}} (got {shown}).'
        )
    return command.strip(), args


def effective(name: str, arguments: str) -> tuple[str, str]:
    """The tool name and JSON arguments a call runs: a well-formed ``game`` call's
    command and arguments; any other call (and a malformed ``game`` call) as it is."""
    if name != GAME_TOOL:
        return name, arguments
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        return name, arguments
    if not isinstance(parsed, dict):
        return name, arguments
    try:
        command, args = game_command(parsed)
    except GameCallError:
        return name, arguments
    return command, json.dumps(args, ensure_ascii=False)


def effective_call(call: ToolCall) -> ToolCall:
    """``call`` as the command it runs (same id): see :func:`effective`."""
    if call.name != GAME_TOOL:
        return call
    name, arguments = effective(call.name, call.arguments)
    return replace(call, name=name, arguments=arguments)


def wrap(name: str, args: Mapping[str, Any]) -> str:
    """The JSON arguments of a ``game`` call that runs ``name`` with ``args``."""
    return json.dumps({"command": name, "args": dict(args)}, ensure_ascii=False)


def _argument(name: str, schema: Mapping[str, Any], required: bool) -> str:
    text = name if required else f"{name}?"
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
        return f"{text}:{'|'.join(enum)}"
    kind = {"integer": "int", "number": "num", "boolean": "bool", "array": "list"}.get(
        str(schema.get("type")), ""
    )
    return f"{text}:{kind}" if kind else text


def command_line(name: str, parameters: Mapping[str, Any]) -> str:
    """One command as the guide states it: ``buy(item_id, quantity:int)``."""
    properties = parameters.get("properties") or {}
    required = set(parameters.get("required") or ())
    ordered = [k for k in properties if k in required] + [
        k for k in properties if k not in required
    ]
    args = ", ".join(_argument(k, properties[k] or {}, k in required) for k in ordered)
    return f"{name}({args})"


def game_tool(schemas: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The one ``game`` tool standing for these game tools (OpenAI function schemas, as
    a model would see them in full): its description lists every command once, in
    the order given, with its arguments. Spaces part the commands: in the JSON a
    chat template renders, a newline costs more tokens than a space."""
    lines = []
    for schema in schemas:
        fn = schema.get("function") or schema
        lines.append(command_line(str(fn["name"]), fn.get("parameters") or {}))
    return {
        "type": "function",
        "function": {
            "name": GAME_TOOL,
            "description": GAME_TOOL_HEAD + _GUIDE_START + " ".join(lines),
            "parameters": GAME_TOOL_PARAMETERS,
        },
    }


def guide_commands(description: str) -> frozenset[str]:
    """The command names a ``game`` tool's description lists."""
    _, found, guide = description.partition(_GUIDE_START)
    return frozenset(_COMMAND.findall(guide)) if found else frozenset()
