"""Every key of the command center, in one table: the help screen shows it, tests check it."""

from __future__ import annotations

#: (group, ((keys, what they do), ...)), in the order the help screen lists them.
KEY_HELP: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Everywhere",
        (
            ("m", "direct message to the selected (or focused) Mysis"),
            ("b", "broadcast an order to every idle or running Mysis"),
            ("n", "new Mysis: name, provider, model, strategy"),
            ("c", "configure the Mysis: provider, model, strategy"),
            (
                "a",
                "add a provider: type, endpoint, model, key variable; probed, then saved to "
                "the config file (its diff shown first)",
            ),
            ("r", "relaunch (start) the Mysis"),
            ("s", "stop the Mysis (it stays stopped across restarts)"),
            ("d", "delete the Mysis and its memories (asks first)"),
            ("p", "context preview and strategy switcher"),
            (
                "/",
                "search the Mysis's memories and the broadcasts; a hit opens the conversation "
                "at it",
            ),
            (
                "x",
                "request inspector: the requests the Mysis sent, each as sent, its answer "
                "and its diff from the one before",
            ),
            ("A", "arena: play a scored scenario with chosen providers and strategies"),
            ("?", "this help"),
            ("esc", "close the dialog, panel or view on top (the palette's Keys panel too)"),
            ("ctrl+p", "command palette: every action by name"),
            ("q  ctrl+q", "quit (asks first while Myses run)"),
        ),
    ),
    (
        "Dashboard",
        (
            (
                "↑ ↓ ← →  k j",
                "select a Mysis: up, down, left, right in the grid of panes (mouse: click)",
            ),
            ("home end", "first or last Mysis"),
            ("pgup pgdn", "a page up or down"),
            ("enter", "focus the selected Mysis (mouse: double click)"),
        ),
    ),
    (
        "Focus view",
        (
            ("esc", "back to the dashboard"),
            ("[  ]", "previous or next Mysis, without leaving"),
            ("tab shift+tab", "the next or previous entry that expands, then on to the preview"),
            ("enter space  click", "expand or collapse that entry (reasoning, long payloads)"),
            ("v", "expand or collapse every entry"),
            ("e", "show whole messages in the context preview"),
            ("i", "show or hide the game-state sidebar"),
            ("end G", "jump to the newest entry and follow it"),
            ("home", "jump to the Mysis's first memory (older pages load as you scroll up)"),
        ),
    ),
    (
        "Context preview and strategies",
        (
            ("↑ ↓", "compare what each strategy would send right now"),
            ("enter  a", "apply the highlighted strategy to the Mysis"),
            ("e", "show whole messages"),
            ("esc", "close"),
        ),
    ),
    (
        "Search",
        (
            ("↓", "from the words to the hits (best first)"),
            ("↑ ↓  pgup pgdn  home end", "move among the hits"),
            ("enter  click", "open the conversation at the hit"),
            ("esc", "close"),
        ),
    ),
    (
        "Request inspector",
        (
            ("↑ ↓", "the requests, newest first; the highlighted one opens beside them"),
            ("esc", "back"),
        ),
    ),
    (
        "Arena",
        (
            ("ctrl+r", "run the chosen scenarios"),
            ("esc", "back"),
        ),
    ),
    (
        "Questions",
        (
            ("y", "yes"),
            ("n  esc", "no"),
        ),
    ),
    (
        "Forms and input bar",
        (
            ("tab  shift+tab", "next or previous field"),
            ("enter", "send or save"),
            ("↑ ↓", "earlier messages and broadcasts (input history)"),
            ("esc", "cancel"),
        ),
    ),
    (
        "This help",
        (("esc  ?  q", "close it"),),
    ),
)
