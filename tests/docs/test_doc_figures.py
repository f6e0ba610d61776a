"""What the docs state is what the program does, read from the program itself.

- the tool counts and the tool tokens of ``tools = "full"`` and ``"compact"``, from the
  tools a Mysis of the embedded world is really offered (the router, over MCP);
- every configuration key of every section, with the default the table gives, from
  ``config/model.py`` and ``config/load.py``;
- every flag of every command in the command-line synopses, from ``cli.py``'s parsers;
- every key the app binds, in the README's key table: the one ``ui/commands.py``
  generates (whose own test checks it against every ``BINDINGS``);
- ``zoea --help`` in plain words, and a README that opens with its two commands.

Each check has a test that shows it naming a wrong statement.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zoea_tui.cli import _parser
from zoea_tui.config.load import _SECTION_KEYS, PROVIDER_KEYS
from zoea_tui.config.model import (
    ContextConfig,
    GameConfig,
    NudgeConfig,
    PathsConfig,
    ProviderConfig,
    StorageConfig,
    SwarmConfig,
)
from zoea_tui.core.game_tool import GAME_TOOL, ToolsMode
from zoea_tui.core.tokens import tools_tokens
from zoea_tui.game.accounts import AccountPool
from zoea_tui.game.connect import in_process_connector
from zoea_tui.game.session import GameSession
from zoea_tui.orchestrator.swarm_tools import swarm_router
from zoea_tui.sim.host import WorldHost
from zoea_tui.sim.mcp_server import in_process_server
from zoea_tui.storage import Store
from zoea_tui.ui.commands import KEY_TABLE_HEAD, key_table_errors

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: Where the docs state figures about the program.
DOCUMENTS = (README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "config.example.toml")


def read(path: Path) -> str:
    """A document's text."""
    return path.read_text(encoding="utf-8")


# -- the tools: counts and tokens -----------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ToolFigures:
    """What the tools offered to a Mysis weigh."""

    game: int  # the game's commands: one schema each with tools = "full"
    total: int  # with the zoea_* tools
    full_tokens: int  # every tool of a request, tools = "full"
    compact_tokens: int  # every tool of a request, tools = "compact"


async def offered(mode: ToolsMode, folder: Path) -> list[dict[str, Any]]:
    """The tools a Mysis of the embedded world is offered in ``mode`` (as bench/tools.py)."""
    host = WorldHost.open(seed=0, tick_seconds=0)
    session = GameSession(in_process_connector(lambda: in_process_server(host)), name="docs")
    store = await Store.open(folder / f"tools-{mode}.db")
    try:
        return await swarm_router(AccountPool(store, 1, "embedded"), session).tool_schemas(mode)
    finally:
        await session.aclose()
        await store.close()


@pytest.fixture
async def figures(tmp_path: Path) -> ToolFigures:
    full = await offered("full", tmp_path)
    compact = await offered("compact", tmp_path)
    assert compact[-1]["function"]["name"] == GAME_TOOL
    ours = len(compact) - 1
    return ToolFigures(
        game=len(full) - ours,
        total=len(full),
        full_tokens=tools_tokens(full),
        compact_tokens=tools_tokens(compact),
    )


def _number(text: str) -> int:
    """ "5 800" or "5,800" as 5800."""
    return int(re.sub(r"[ ,]", "", text))


def hundreds(tokens: int) -> int:
    """A token figure as the docs write it: to the nearest hundred ("about 1 600")."""
    return round(tokens, -2)


_SCHEMAS = re.compile(r"(game's )?(\d+) (?:tool )?schemas")
_WITH_OURS = re.compile(r"\((\d+) with\s+the `zoea_\*` tools\)")
_FIGURE = r"(\d{1,3}(?:[ ,]\d{3})*)"
_ABOUT = re.compile(rf"[Aa]bout\s+{_FIGURE}\s+tool\s+tokens")
_INSTEAD = re.compile(rf"{_FIGURE}\s+tool\s+tokens\s+instead\s+of\s+{_FIGURE}")


def tool_figure_errors(text: str, figures: ToolFigures) -> list[str]:
    """Each statement of ``text`` about the tools that the code does not bear out."""
    errors = []
    for game, count in _SCHEMAS.findall(text):
        expected = figures.game if game else figures.total
        if int(count) != expected:
            errors.append(f"{game}{count} schemas (the code: {expected})")
    for count in _WITH_OURS.findall(text):
        if int(count) != figures.total:
            errors.append(f"{count} with the zoea_* tools (the code: {figures.total})")
    allowed = {hundreds(figures.full_tokens), hundreds(figures.compact_tokens)}
    for tokens in _ABOUT.findall(text):
        if _number(tokens) not in allowed:
            errors.append(f"about {tokens} tool tokens (the code: {sorted(allowed)})")
    for compact, full in _INSTEAD.findall(text):
        if (_number(compact), _number(full)) != (
            hundreds(figures.compact_tokens),
            hundreds(figures.full_tokens),
        ):
            errors.append(f"{compact} tool tokens instead of {full}")
    return errors


def test_the_docs_tool_counts_and_tokens_are_the_codes(figures: ToolFigures) -> None:
    errors = {
        str(path.relative_to(ROOT)): tool_figure_errors(read(path), figures) for path in DOCUMENTS
    }
    assert {path: found for path, found in errors.items() if found} == {}
    # The figures are stated where the tools are explained, in the form checked above.
    context = read(ROOT / "docs" / "CONTEXT.md")
    assert f"The game's {figures.game} schemas (" in context
    assert (
        f"About {hundreds(figures.compact_tokens):,} tool tokens instead of".replace(",", " ")
        in context
    )


def test_the_tool_check_names_a_wrong_count_and_a_wrong_token_figure() -> None:
    figures = ToolFigures(game=73, total=79, full_tokens=5_799, compact_tokens=1_575)
    right = (
        "The game's 73 tool schemas (79 with the `zoea_*` tools) are about 5 800 tool "
        "tokens; compact: about 1 600 tool tokens instead of 5 800."
    )
    assert tool_figure_errors(right, figures) == []
    wrong = (
        "the game's 78 tool schemas alone (73 with the `zoea_*` tools); compact: about "
        "750 tool tokens, 1 300 tool tokens instead of 5 500."
    )
    assert tool_figure_errors(wrong, figures) == [
        "game's 78 schemas (the code: 73)",
        "73 with the zoea_* tools (the code: 79)",
        "about 750 tool tokens (the code: [1600, 5800])",
        "1 300 tool tokens instead of 5 500",
    ]


# -- the configuration table ----------------------------------------------------------

SECTION_CLASSES: dict[str, type] = {
    "swarm": SwarmConfig,
    "context": ContextConfig,
    "nudge": NudgeConfig,
    "game": GameConfig,
    "paths": PathsConfig,
    "storage": StorageConfig,
    "providers.NAME": ProviderConfig,
}


def config_rows(markdown: str) -> dict[str, str]:
    """The configuration table's rows: section name (``providers.NAME``) to its keys cell."""
    rows = re.findall(r"^\| `\[([\w.]+)\]` \| (.*) \|$", markdown, re.MULTILINE)
    return dict(rows)


def _documented(cell: str) -> Iterator[tuple[str, str | None]]:
    """Each `key` of a cell, with what its parenthesis opens with (its default) if any."""
    for match in re.finditer(r"`(\w+)`(?: \(([^,;:)]+))?", cell):
        yield match.group(1), match.group(2)


def config_table_errors(markdown: str) -> list[str]:
    """Each key the code reads that the table leaves out, and each default it misstates.

    A parenthesis right after a key that opens with a number or a quoted word states its
    default, which must be the dataclass's (``type`` has none: its parenthesis lists the
    choices).
    """
    rows = config_rows(markdown)
    keys = {**_SECTION_KEYS, "providers.NAME": PROVIDER_KEYS["openai"]}
    errors = []
    for section, names in keys.items():
        cell = rows.get(section)
        if cell is None:
            errors.append(f"[{section}] has no row")
            continue
        documented: dict[str, str | None] = {}
        for key, stated in _documented(cell):  # its first mention: where it is listed
            documented.setdefault(key, stated)
        defaults = {f.name: f.default for f in dataclasses.fields(SECTION_CLASSES[section])}
        for name in names:
            if name not in documented:
                errors.append(f"[{section}] {name} is not in the table")
                continue
            stated = (documented[name] or "").strip()
            default = defaults.get(name)
            if not isinstance(default, str | int | float) or name == "type":
                continue  # no plain default (a factory's object, None), or choices listed
            if not re.match(r'^("|\d)', stated):
                continue
            if stated.startswith('"'):
                ok = stated.split('"')[1] == default
            else:
                ok = isinstance(default, int | float) and float(stated.split()[0]) == default
            if not ok:
                errors.append(f"[{section}] {name}: the table says {stated}, the code {default!r}")
    return errors


def test_the_configuration_table_has_every_key_and_its_default() -> None:
    assert config_table_errors(read(ROOT / "docs" / "CONFIGURATION.md")) == []


def test_the_configuration_check_names_a_missing_key_and_a_wrong_default() -> None:
    text = read(ROOT / "docs" / "CONFIGURATION.md")
    without_world = re.sub(r", `world` \([^|]*\)", "", text)
    assert config_table_errors(without_world) == ["[game] world is not in the table"]
    wrong_default = text.replace("`idle_seconds` (30)", "`idle_seconds` (60)")
    assert config_table_errors(wrong_default) == [
        "[nudge] idle_seconds: the table says 60, the code 30.0"
    ]
    # A key named again later in its row (window_margin's text names max_context_messages)
    # is checked where it is listed.
    wrong_first = text.replace("`max_context_messages` (20)", "`max_context_messages` (25)")
    assert config_table_errors(wrong_first) == [
        "[context] max_context_messages: the table says 25, the code 20"
    ]
    without_prices = text.replace(
        "`price_in`, `price_cached`, `price_cache_write`, `price_out`", ""
    )
    assert config_table_errors(without_prices) == [
        f"[providers.NAME] {name} is not in the table"
        for name in ("price_in", "price_cached", "price_cache_write", "price_out")
    ]


# -- the command-line synopses --------------------------------------------------------


def parser_flags() -> dict[str, set[str]]:
    """Each command (``""`` for ``zoea`` itself, ``"sim serve"``) and its long flags."""
    found: dict[str, set[str]] = {}

    def walk(parser: argparse.ArgumentParser, command: str) -> None:
        flags = set()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{command} {name}".strip())
            flags |= {o for o in action.option_strings if o.startswith("--") and o != "--help"}
        if flags:
            found[command] = flags

    walk(_parser(), "")
    return found


def synopsis_errors(markdown: str, flags: dict[str, set[str]]) -> list[str]:
    """Each flag a command has that the synopsis (the code block of lines ``zoea …``
    under the "Command line" heading) leaves out, and each flag it states that the
    command does not have."""
    section = re.split(r"^#+ Command line\s*$", markdown, flags=re.MULTILINE)[1]
    block = re.search(r"^```\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    assert block is not None, "no synopsis"
    stated: dict[str, set[str]] = {}
    for line in block.group(1).splitlines():
        words = line.split()
        command = " ".join(w for w in words[1:3] if re.fullmatch(r"[a-z]+", w))
        command = command if command in flags or not command else command.split()[0]
        stated.setdefault(command, set()).update(re.findall(r"(?<![\w-])--[a-z][a-z-]*", line))
    errors = []
    for command, names in sorted(flags.items()):
        shown = stated.get(command, set())
        label = f"zoea {command}".strip()
        errors += [f"{label}: {flag} missing" for flag in sorted(names - shown)]
        errors += [f"{label}: {flag} is no flag of it" for flag in sorted(shown - names)]
    return errors


@pytest.mark.parametrize("doc", ["CLI.md", "ARCHITECTURE.md"])
def test_the_synopsis_states_every_flag_of_every_command(doc: str) -> None:
    assert synopsis_errors(read(ROOT / "docs" / doc), parser_flags()) == []


def test_the_synopsis_check_names_a_missing_and_a_made_up_flag() -> None:
    text = read(ROOT / "docs" / "CLI.md")
    old = "zoea replay  --db FILE [--mysis NAME] --strategy S [--config FILE] [--json]"
    assert old in text
    without_config = text.replace(old, "zoea replay  --db FILE [--mysis NAME] --strategy S --jsn")
    assert synopsis_errors(without_config, parser_flags()) == [
        "zoea replay: --config missing",
        "zoea replay: --json missing",
        "zoea replay: --jsn is no flag of it",
    ]


def test_zoea_help_is_plain_words() -> None:
    text = _parser().format_help()
    assert "``" not in text
    assert "Zoea Nova" in text.split("\n\n")[1]


# -- the README -----------------------------------------------------------------------


def test_the_readmes_key_table_is_the_one_the_command_table_generates() -> None:
    """``make readme-keys`` writes it (``scripts/readme_keys.py``)."""
    assert key_table_errors(read(README)) == []


def test_the_key_table_check_names_a_key_left_out() -> None:
    text = read(README)
    row = "| | `i` | show or hide the game-state sidebar |"
    assert row in text
    assert key_table_errors(text.replace(f"{row}\n", "")) == [f"- {row}"]
    left_out = text.replace("| | `end` `G` |", "| | `end` |")
    assert key_table_errors(left_out) == [
        "- | | `end` `G` | jump to the newest entry and follow it |",
        "+ | | `end` | jump to the newest entry and follow it |",
    ]
    assert key_table_errors(text.replace(KEY_TABLE_HEAD, "| keys |")) == [
        f"no key table (a line {KEY_TABLE_HEAD!r})"
    ]


def test_the_readme_is_a_first_read_that_opens_with_its_two_commands() -> None:
    lines = read(README).splitlines()
    assert len(lines) <= 200
    assert lines[2:6] == [
        "```sh",
        "make run     # sets up .venv if missing, then starts Zoea Nova on the embedded world",
        "make test    # sets up .venv if missing, then runs the whole suite (offline)",
        "```",
    ]
