"""Every key of the command center, in one table: the help screen shows it, tests check it."""

from __future__ import annotations

#: (group, ((keys, what they do), ...)), in the order the help screen lists them.
KEY_HELP: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("Everywhere", (
        ("m", "direct message to the selected (or focused) Mysis"),
        ("b", "broadcast an order to every idle or running Mysis"),
        ("n", "new Mysis: name, provider, model, strategy"),
        ("c", "configure the Mysis: provider, model, strategy"),
        ("r", "relaunch (start) the Mysis"),
        ("s", "stop the Mysis (it stays stopped across restarts)"),
        ("d", "delete the Mysis and its memories (asks first)"),
        ("p", "context preview and strategy switcher"),
        ("A", "arena: play a scored scenario with chosen providers and strategies"),
        ("?", "this help"),
        ("ctrl+p", "command palette: every action by name"),
        ("q  ctrl+q", "quit (asks first while Myses run)"),
    )),
    ("Dashboard", (
        ("↑ ↓ ← →  k j h l", "select a Mysis: up, down, left, right in the grid of panes "
                             "(mouse: click)"),
        ("home end", "first or last Mysis"),
        ("pgup pgdn", "a page up or down"),
        ("enter", "focus the selected Mysis (mouse: double click)"),
    )),
    ("Focus view", (
        ("esc", "back to the dashboard"),
        ("[  ]", "previous or next Mysis, without leaving"),
        ("enter  click", "expand or collapse one entry (reasoning, long payloads)"),
        ("v", "expand or collapse every entry"),
        ("e", "show whole messages in the context preview"),
        ("i", "show or hide the game-state sidebar"),
        ("end G", "jump to the newest entry and follow it"),
        ("home", "jump to the oldest entry"),
        ("tab", "move between log, preview and sidebar (wheel scrolls any)"),
    )),
    ("Context preview and strategies", (
        ("↑ ↓", "compare what each strategy would send right now"),
        ("enter  a", "apply the highlighted strategy to the Mysis"),
        ("e", "show whole messages"),
        ("esc", "close"),
    )),
    ("Forms and input bar", (
        ("tab  shift+tab", "next or previous field"),
        ("enter", "send or save"),
        ("↑ ↓", "earlier messages and broadcasts (input history)"),
        ("esc", "cancel"),
    )),
)
