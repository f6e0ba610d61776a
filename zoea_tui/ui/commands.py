"""Every command of the command center, once: its keys, its names, its help and when it works.

:data:`COMMANDS` is the one table of the app's actions; everything that lists them is
generated from it: the app's ``BINDINGS`` (:func:`app_bindings`), what its
``check_action`` allows (:attr:`Command.when`), the command palette, the ``?`` help
(:func:`help_sections`), the key bar (a command's :attr:`Command.bar` word) and the
README's key table (:func:`key_table_markdown`; a test holds the README to it,
``scripts/readme_keys.py`` writes it).

A command that only shows a screen names it (:attr:`Command.screen`): the app opens it
with its one ``open`` action, so a new screen is its module plus one row here.

The keys a screen binds for itself (the focus view's ``[`` ``]``, a list's arrows …)
stay on the screen, which names its groups here (``HELP_GROUPS``); their lines in the
help are here too, in :data:`SCREEN_KEYS`, and a test finds every class that binds keys
and checks each key is listed in the groups it names.

Pure data: nothing here imports a screen (the help screen reads this module).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol

from textual.binding import Binding

if TYPE_CHECKING:
    from textual.screen import Screen

    from ..orchestrator.events import MysisView

#: The help's group of the app's own commands (they work on every screen).
EVERYWHERE = "Everywhere"

#: Textual's key names as the help and the README show them.
KEY_DISPLAY = {"slash": "/", "question_mark": "?", "escape": "esc"}


class When(Enum):
    """When a command's key works (the app's ``check_action`` reads it)."""

    #: Always, but not while a question is asked (its own answer keys come first).
    NOT_ASKING = "not asking"
    #: Not under a dialog (a modal screen) or the size guard.
    NO_DIALOG = "no dialog"
    #: Not under a dialog, and once the engine is open (shown dimmed before).
    ENGINE = "engine"
    #: Only while the command palette's Keys panel is open (else the key goes on).
    KEYS_PANEL = "keys panel"


class OpenedScreen(Protocol):
    """A screen a command opens (:attr:`Command.screen`): its class builds it."""

    @classmethod
    def opened(cls, view: MysisView | None) -> Screen[Any]:
        """The screen, for Mysis ``view`` if the command acts on one (else None)."""
        ...


@dataclass(frozen=True)
class Command:
    """One action of the app, with everything that lists it.

    ``name`` is the action: the app's ``action_<name>`` handles it, or, for a command
    with a :attr:`screen`, the app's ``open`` action shows that screen.
    """

    name: str
    #: Textual key names the app binds to it (none: a key Textual binds itself).
    keys: tuple[str, ...]
    #: The palette's title.
    title: str
    #: The word on the key bar and in the palette's Keys panel.
    label: str
    #: The line in the ``?`` help, the palette and the README.
    help: str
    #: The help's section.
    group: str = EVERYWHERE
    when: When = When.ENGINE
    #: Shown on the key bar (else only in the help, the palette and the Keys panel).
    bar: bool = False
    #: Kept on the key bar however narrow the terminal.
    kept: bool = False
    #: Offered by the command palette.
    palette: bool = True
    #: Checked before the screens' own keys.
    priority: bool = False
    #: Keys Textual binds to it itself: shown in the help, never bound again.
    also: tuple[str, ...] = ()
    #: The screen it shows, ``"module.Class"`` under ``zoea_tui.ui.screens``; built with
    #: the class's ``opened(view)`` (a classmethod) for the Mysis the current screen
    #: points at when :attr:`target` (``opened(None)`` otherwise).
    screen: str = ""
    #: It acts on the selected or focused Mysis (warns when there is none).
    target: bool = False

    @property
    def action(self) -> str:
        """The action string a binding runs."""
        return f"open('{self.name}')" if self.screen else self.name

    @property
    def shown_keys(self) -> str:
        """The keys as the help shows them: the bound ones, then Textual's own."""
        bound = " ".join(KEY_DISPLAY.get(key, key) for key in self.keys)
        return "  ".join(part for part in (bound, " ".join(self.also)) if part)

    def binding(self, *, from_screen: bool = False, bar: bool | None = None) -> Binding:
        """The Textual binding of its keys; ``from_screen``: bound on a screen, the app's
        action all the same (``bar``: shown on that screen's key bar or not)."""
        return Binding(
            ",".join(self.keys),
            f"app.{self.action}" if from_screen else self.action,
            self.label,
            show=self.bar if bar is None else bar,
            priority=self.priority,
        )


#: Every action of the app, in the order the help, the palette and the bindings list them.
COMMANDS: tuple[Command, ...] = (
    Command(
        "message",
        ("m",),
        "Message",
        "Message",
        "direct message to the selected (or focused) Mysis",
        bar=True,
        screen="input_bar.MessageBar",
        target=True,
    ),
    Command(
        "broadcast",
        ("b",),
        "Broadcast",
        "Broadcast",
        "broadcast an order to every idle or running Mysis",
        bar=True,
        screen="input_bar.BroadcastBar",
    ),
    Command(
        "new_mysis",
        ("n",),
        "New Mysis",
        "New",
        "new Mysis: name, provider, model (listed by the provider's server), strategy",
        bar=True,
        screen="forms.NewMysisScreen",
    ),
    Command(
        "configure",
        ("c",),
        "Configure",
        "Configure",
        "configure the Mysis: provider, model, strategy, live",
        screen="forms.ConfigureScreen",
        target=True,
    ),
    Command(
        "add_provider",
        ("a",),
        "Add a provider",
        "Add provider",
        "add a provider: type, endpoint, model, key variable; probed, then saved to "
        "the config file (its diff shown first)",
        screen="add_provider.AddProviderScreen",
    ),
    Command(
        "relaunch",
        ("r",),
        "Relaunch",
        "Relaunch",
        "relaunch (start) the Mysis; one waiting to try its model again tries now",
        target=True,
    ),
    Command(
        "stop",
        ("s",),
        "Stop",
        "Stop",
        "stop the Mysis (it stays stopped across restarts)",
        target=True,
    ),
    Command(
        "delete",
        ("d",),
        "Delete",
        "Delete",
        "delete the Mysis and its memories (asks first)",
        screen="delete.DeleteScreen",
        target=True,
    ),
    Command(
        "preview",
        ("p",),
        "Context preview and strategies",
        "Context",
        "context preview and strategy switcher",
        bar=True,
        screen="strategies.StrategyScreen",
        target=True,
    ),
    Command(
        "search",
        ("slash",),
        "Search",
        "Search",
        "search the Mysis's memories and the broadcasts; a hit opens the conversation at it",
        target=True,
    ),
    Command(
        "requests",
        ("x",),
        "Request inspector",
        "Requests",
        "request inspector: the requests the Mysis sent, each as sent, its answer "
        "and its diff from the one before",
        screen="inspector.InspectorScreen",
        target=True,
    ),
    Command(
        "arena",
        ("A",),
        "Arena",
        "Arena",
        "arena: play a scored scenario with chosen providers and strategies",
        screen="arena.ArenaScreen",
    ),
    Command(
        "help",
        ("question_mark",),
        "Help",
        "Help",
        "help: every key, every provider and where it comes from",
        when=When.NO_DIALOG,
        bar=True,
        kept=True,
        screen="help.HelpScreen",
    ),
    Command(
        "close_keys",
        ("escape",),
        "Close keys",
        "Close keys",
        "close the dialog, panel or view on top (the palette's Keys panel too)",
        when=When.KEYS_PANEL,
        palette=False,
        # Before any screen's esc: the palette's Keys panel is a widget, not a screen.
        priority=True,
    ),
    Command(
        "command_palette",
        (),
        "Command palette",
        "Palette",
        "command palette: every action by name",
        when=When.NOT_ASKING,  # Textual binds it and decides (the table only lists it)
        palette=False,
        also=("ctrl+p",),
    ),
    Command(
        "quit",
        ("q",),
        "Quit",
        "Quit",
        "quit (asks first while Myses run)",
        when=When.NOT_ASKING,
        bar=True,
        kept=True,
        also=("ctrl+q",),
    ),
)

#: The commands by name.
BY_NAME: dict[str, Command] = {command.name: command for command in COMMANDS}

#: The keys every key bar keeps however narrow: help and quit.
KEPT_KEYS = frozenset(key for command in COMMANDS if command.kept for key in command.keys)

#: The help's lines for the keys the screens and their widgets bind themselves:
#: (group, ((keys, what they do), ...)), in the order the help lists them.
SCREEN_KEYS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
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

#: The help's sections: (group, ((keys, what they do), ...)).
HelpSections = tuple[tuple[str, tuple[tuple[str, str], ...]], ...]


def app_bindings() -> list[Binding]:
    """The app's bindings: every command with keys of its own."""
    return [command.binding() for command in COMMANDS if command.keys]


def help_sections() -> HelpSections:
    """Every key by group, as the ``?`` help lists them: the app's commands, then the
    screens' own keys."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for command in COMMANDS:
        groups.setdefault(command.group, []).append((command.shown_keys, command.help))
    for group, lines in SCREEN_KEYS:
        groups.setdefault(group, []).extend(lines)
    return tuple((group, tuple(lines)) for group, lines in groups.items())


#: The line the README's key table starts with.
KEY_TABLE_HEAD = "| where | keys | what they do |"


def key_table_markdown(sections: HelpSections | None = None) -> str:
    """The README's key table (markdown) of ``sections`` (the help's, by default)."""
    lines = [KEY_TABLE_HEAD, "|---|---|---|"]
    for group, rows in help_sections() if sections is None else sections:
        for n, (keys, what) in enumerate(rows):
            where = " " if n else f" **{group}** "
            shown = " ".join(f"`{key}`" for key in keys.split())
            lines.append(f"|{where}| {shown} | {what} |")
    return "\n".join(lines) + "\n"


def key_table_in(markdown: str) -> str:
    """The key table of a README (its lines from :data:`KEY_TABLE_HEAD` on, to the first
    line that is not a table's); empty if it has none."""
    found = re.search(rf"^{re.escape(KEY_TABLE_HEAD)}\n(?:\|.*\n?)*", markdown, re.MULTILINE)
    return found.group(0) if found else ""


def key_table_errors(markdown: str) -> list[str]:
    """How a README's key table differs from :func:`key_table_markdown`: each line it
    lacks (``- line``) or has in excess (``+ line``); none when they agree."""
    want = key_table_markdown().splitlines()
    have = key_table_in(markdown).splitlines()
    if not have:
        return [f"no key table (a line {KEY_TABLE_HEAD!r})"]
    return [f"- {line}" for line in want if line not in have] + [
        f"+ {line}" for line in have if line not in want
    ] or (["the lines are in another order"] if want != have else [])


def with_key_table(markdown: str) -> str:
    """``markdown`` with its key table replaced by :func:`key_table_markdown`."""
    old = key_table_in(markdown)
    if not old:
        raise ValueError(f"no key table (a line {KEY_TABLE_HEAD!r}) to replace")
    return markdown.replace(old, key_table_markdown(), 1)
