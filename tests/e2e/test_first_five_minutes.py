"""The first five minutes of a newcomer, on the real app in a real terminal (issue 40).

``zoea --data-dir <fresh folder>`` runs in its own tmux session at 100×30, with no
configuration and no provider variables, and is walked as the README's "first five
minutes" tell: watch the swarm register, mine and sell; focus a Mysis; its NEXT/LAST
REQUEST (the dashboard shows it from 160 columns: the terminal is widened for it); search;
the request inspector; a direct message; a broadcast of each order the README names; a
new Mysis; quit, and start again on the same folder at 80×24.

It fails on an error line on screen, a Mysis frozen (no tool call for 60 s of game time
while its standing order is work), a hold broken, a figure of one request that two views
give differently, and a word on screen cut by a wrap (``screen_oracles.py``,
``swarm_store.py``). Every failure is collected with the screen or the store's words, and
all of them are reported at the end. Waits poll the screen and the store with the 60 s
hang detector; nothing is timed.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
import time
import token
import tokenize
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e.screen_oracles import (
    error_lines,
    figure_disagreements,
    figures_compared,
    meter_of,
    mid_word_cuts,
    newest_row,
    words,
)
from tests.e2e.swarm_store import Event, SwarmStore, frozen_stretches, hold_breaks
from tests.tmux_app import HANG_SECONDS, TmuxApp, newcomer_env, wait_until
from zoea_tui.providers.autopilot.orders import lifetime, parse_order

# A walk of about two minutes; each hang adds one (at most MAX_HANGS of them).
pytestmark = [pytest.mark.tmux, pytest.mark.timeout(480)]

ZOEA = Path(sys.executable).parent / "zoea"
ROOT = Path(__file__).resolve().parents[2]
FIRST = ("Ada", "Brin", "Cass")
NEWCOMER = "Dora"
#: Hangs after which the walk stops (each costs a minute; the rest would hang too).
MAX_HANGS = 3


def readme_orders() -> dict[str, str]:
    """The orders the README says the autopilot obeys, by the kind the app reads in them
    (``parse_order``, the one place): ``{"report": "report", "goto": "go to X", …}``."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sentence = re.search(r"autopilot\s+obeys\s(.*?)\.\s", readme, re.S)
    assert sentence, "the README no longer says which orders the autopilot obeys"
    orders = {}
    for text in re.findall(r'"([^"]+)"', sentence.group(1)):
        order = parse_order(text.replace(" X", " the station"))
        assert order is not None, f"the README's order {text!r} is no order to the app"
        orders[order.kind] = text
    return orders


def app_strings() -> Iterator[str]:
    """Every string literal of the app's code (f-strings' literal parts too)."""
    kinds = {token.STRING, getattr(token, "FSTRING_MIDDLE", token.STRING)}
    for source in sorted((ROOT / "zoea_tui").rglob("*.py")):
        with source.open("rb") as file:
            for tok in tokenize.tokenize(file.readline):
                if tok.type in kinds:
                    yield tok.string


class Vocabulary:
    """The words the app may print: its own (the string literals of its code) and its
    story's (every stored text), grown as the story does."""

    def __init__(self, store: SwarmStore) -> None:
        self.store = store
        self.words: set[str] = set()
        for text in app_strings():
            self.words |= words(text)
        self.seen = 0

    def refresh(self) -> None:
        """Take in what was stored since the last look."""
        newest = self.store.newest_memory()
        for text in self.store.texts(self.seen):
            self.words |= words(text)
        self.seen = newest

    def __call__(self, word: str) -> bool:
        return word in self.words


class Walk:
    """The app under walk, its store, and every failure seen so far."""

    def __init__(self, app: TmuxApp, store: SwarmStore) -> None:
        self.app = app
        self.store = store
        self.vocabulary = Vocabulary(store)
        self.failures: list[str] = []
        #: Wall times the app was quit and started again (no stretch spans one).
        self.breaks: list[float] = []
        self.started = time.monotonic()
        self.hangs = 0

    def fail(self, message: str) -> None:
        """Note a failure once."""
        if message not in self.failures:
            self.failures.append(message)

    def look(self, where: str, screen: str | None = None) -> str:
        """Check the screen now: error lines, words cut by a wrap, figures that disagree."""
        print(f"{time.monotonic() - self.started:6.1f}s {where}")
        screen = self.app.screen() if screen is None else screen
        problems = error_lines(screen)
        self.vocabulary.refresh()
        problems += [f"cut mid-word: {c}" for c in mid_word_cuts(screen, self.vocabulary)]
        problems += self.steady_disagreements(screen)
        for problem in problems:
            self.fail(f"{where}: {problem}\n{screen}")
        return screen

    def steady_disagreements(self, screen: str) -> list[str]:
        """The figures ``screen`` gives differently in two views, once the screen reads the
        same twice: a live Mysis's views are redrawn one after the other, so a request
        may show in one a moment before the other (a disagreement that goes away)."""
        found = figure_disagreements(screen)
        for _ in range(10):
            if not found:
                return []
            time.sleep(0.5)
            again = figure_disagreements(self.app.screen())
            if again == found:
                return found
            found = again
        return [f"the views never stood still to compare; last seen: {found}"]

    def wait_screen(self, where: str, *needles: str, compare: bool = False) -> str:
        """Wait for the needles on screen, then look at it; with ``compare``, it must
        show two views of a request's figure (else the check has nothing to check)."""
        if not compare:
            return self.look(where, self.app.wait_for(*needles))

        def comparable() -> str | None:
            screen = self.app.wait_for(*needles)
            return screen if figures_compared(screen) else None

        try:
            screen = wait_until(comparable, f"two views of one figure on {where}")
        except AssertionError as hang:
            self.fail(str(hang))
            screen = self.app.screen()
        return self.look(where, screen)

    def each(
        self,
        what: str,
        after: dict[str, int],
        done: Callable[[Event], bool],
    ) -> dict[str, Event]:
        """Wait until each Mysis in ``after`` has a memory after its id there that is
        ``done``; a Mysis that never has is a failure (a hang), the walk goes on."""
        ids: dict[str, int] = {}
        found: dict[str, Event] = {}

        def all_done() -> dict[str, Event] | None:
            if set(after) - set(ids):
                ids.update(self.store.myses())
            for name, start in after.items():
                if name not in found and name in ids:
                    hit = next((e for e in self.store.events(ids[name], start) if done(e)), None)
                    if hit is not None:
                        found[name] = hit
            return found if len(found) == len(after) else None

        try:
            wait_until(all_done, what)
        except AssertionError:
            self.hangs += 1
            for name in sorted(set(after) - set(found)):
                story = self.store.events(ids[name], after[name])[:8] if name in ids else []
                self.fail(
                    f"hang: {name}: {what} not seen in {HANG_SECONDS:.0f}s; what it did:\n"
                    + "\n".join(
                        f"  T{e.tick} {e.role}: {e.content[:100]!r} {e.calls}" for e in story
                    )
                )
            if self.hangs >= MAX_HANGS:
                raise AssertionError(
                    f"{self.hangs} hangs: the walk stops here.\n\n" + "\n\n".join(self.failures)
                ) from None
        return found

    def order_ids(self, names: tuple[str, ...], text: str, after: int) -> dict[str, int]:
        """Each Mysis's memory holding the order ``text`` sent after memory ``after``."""
        found = self.each(
            f"the order {text!r} delivered",
            dict.fromkeys(names, after),
            lambda e: e.role == "user" and e.content == text,
        )
        return {name: event.id for name, event in found.items()}

    def broadcast(self, text: str, names: tuple[str, ...]) -> dict[str, int]:
        """``b``, the order, enter; returns each Mysis's memory of it."""
        before = self.store.newest_memory()
        self.app.keys("b")
        self.app.wait_for("BROADCAST TO THE SWARM")
        self.app.type(text)
        self.app.keys("Enter")
        self.wait_screen(f"the broadcast {text!r}", "commander", text)
        return self.order_ids(names, text, before)

    def check_story(self, names: tuple[str, ...], *, now: bool) -> None:
        """The rules over each Mysis's whole story: never frozen, holds kept."""
        for name in names:
            line = self.store.timeline(name)
            at = time.time() if now else None
            for problem in frozen_stretches(line, at, breaks=self.breaks) + hold_breaks(line):
                self.fail(problem)

    def quit(self) -> None:
        """``q``, then yes; the app must end."""
        self.app.keys("q")
        self.app.wait_for("Stay (n)")
        self.app.keys("y")
        # tmux knows the pane is dead (its terminal closed) a moment before its status.
        status = wait_until(lambda: self.app.exit_status() or None, "the app to end")
        self.look("the terminal after quitting")
        if status != "0":
            self.fail(f"the app quit with status {status}\n{self.app.screen()}")
        self.app.close()
        self.breaks.append(time.time())


def called(*names: str, mentioning: str = "") -> Callable[[Event], bool]:
    """A memory with a call to one of ``names`` (whose arguments mention ``mentioning``)."""
    return lambda e: any(n in names and mentioning in a for n, a in e.calls)


def sold_at(events: list[Event]) -> str:
    """Where a Mysis first sold: the destination of its travel before its first sale."""
    place = ""
    for event in events:
        for name, arguments in event.calls:
            if name == "travel":
                place = str(json.loads(arguments).get("target_poi", ""))
            elif name == "sell" and place:
                return place
    raise AssertionError("the Mysis never sold after travelling")


def is_answer(e: Event) -> bool:
    """A text answer."""
    return e.answer


def acts(e: Event) -> bool:
    """A memory with a game action (a command that costs a tick)."""
    return bool(e.actions)


@pytest.fixture(autouse=True)
def _tmux_is_installed() -> None:
    # Not a skip: without tmux this proof is missing, and the run must say so.
    assert shutil.which("tmux"), "tmux is required for the first-five-minutes test"


def start(walk: Walk, data: Path, env: dict[str, str], width: int, height: int) -> None:
    """Start ``zoea`` on ``data`` in a new session of ``width`` × ``height``."""
    walk.app.start(
        f"{shlex.quote(str(ZOEA))} --data-dir {shlex.quote(str(data))}", width, height, env
    )


def test_first_five_minutes(tmp_path: Path) -> None:
    orders = readme_orders()
    # The walk: report (at work), go to X, each order carried out once (sell, refuel …),
    # hold, report (holding), mine. An order of another kind needs a step of its own.
    once = [kind for kind in orders if lifetime(kind) == "once"]
    walked = {"report", "goto", "hold", "mine", *once}
    assert set(orders) <= walked, f"the README names {orders}, the walk knows {walked}"
    assert {"report", "hold", "mine"} <= set(orders), f"the README names {orders}"
    data = tmp_path / "data"
    (tmp_path / "config").mkdir()
    env = newcomer_env(str(tmp_path / "config"))
    app = TmuxApp("five-minutes")
    walk = Walk(app, SwarmStore(data / "zoea.db"))
    try:
        start(walk, data, env, 100, 30)
        walk.wait_screen("the first screen", "MYSIS SWARM", *FIRST)
        every = tuple(FIRST)

        # Watch: each registers and mines (the sale comes after the views below).
        walk.each("a registration", dict.fromkeys(every, 0), called("register", "login"))
        walk.each("a mining", dict.fromkeys(every, 0), called("mine"))
        walk.look("the dashboard, mining")

        # Focus the selected Mysis (Ada): its conversation beside its context preview.
        app.keys("Enter")
        walk.wait_screen("the focus view", "CONVERSATION · Ada", "CONTEXT PREVIEW", compare=True)
        app.keys("]")
        walk.wait_screen("the focus view, next Mysis", "CONVERSATION · Brin")
        app.keys("[")
        walk.wait_screen("the focus view, back to Ada", "CONVERSATION · Ada")
        app.keys("Escape")
        walk.wait_screen("the dashboard after focus", "MYSIS SWARM")

        # The NEXT/LAST REQUEST panel: the dashboard shows it from 160 columns.
        app.resize(160, 40)
        walk.wait_screen("the dashboard at 160×40", "REQUEST", "MYSIS SWARM", compare=True)
        app.resize(100, 30)
        walk.wait_screen("the dashboard back at 100×30", "MYSIS SWARM")

        # Search: "ron" finds "iron"; a hit opens the conversation at it.
        app.keys("/")
        app.wait_for("SEARCH")
        app.type("ron")
        walk.wait_screen("the search", "hits")
        app.keys("Down", "Enter")
        walk.wait_screen("the conversation at a hit", "CONVERSATION · Ada")
        app.keys("Escape")
        walk.wait_screen("the dashboard after search", "MYSIS SWARM")

        # The request inspector: the list beside the request opened.
        app.keys("x")
        walk.wait_screen("the request inspector", "REQUESTS · Ada", "REQUEST #", compare=True)
        app.keys("Escape")
        walk.wait_screen("the dashboard after the inspector", "MYSIS SWARM")

        walk.each("a sale", dict.fromkeys(every, 0), called("sell"))
        walk.look("the dashboard, selling")

        # A direct message: Ada answers the report.
        before = walk.store.newest_memory()
        app.keys("m")
        app.wait_for("MESSAGE TO Ada")
        app.type(orders["report"])
        app.keys("Enter")
        walk.each("the answer to a direct report", {"Ada": before}, is_answer)
        walk.look("the dashboard after a direct report")

        # A broadcast report: each answers, then goes back to work (the freeze of issue 40).
        sent = walk.broadcast(orders["report"], every)
        answers = walk.each("the answer to the broadcast report", sent, is_answer)
        # A Mysis created now registers and works (it answered the old report before).
        before = walk.store.newest_memory()
        app.keys("n")
        app.wait_for("NEW MYSIS")
        app.type(NEWCOMER)
        app.keys("Enter")
        walk.wait_screen("the new Mysis", f"{NEWCOMER} created")
        walk.each("the new Mysis's registration", {NEWCOMER: before}, called("register"))
        walk.each(
            "a game action after the report was answered",
            {n: e.id for n, e in answers.items()},
            acts,
        )
        every = (*FIRST, NEWCOMER)

        # "go to X", X the station each sold at; then each order carried out once there.
        if "goto" in orders:
            station = sold_at(walk.store.timeline("Ada").events)
            goto = re.sub(r"\bX\b", station, orders["goto"])
            sent = walk.broadcast(goto, every)
            walk.each(
                f"the way to {station}",
                sent,
                lambda e: called("travel", mentioning=station)(e) or e.answer,
            )
        for kind in once:
            sent = walk.broadcast(orders[kind], every)
            walk.each(f"{kind!r} carried out or answered", sent, lambda e: acts(e) or e.answer)
        walk.check_story(every, now=True)

        # "hold": each acknowledges it; then a report must not end it.
        sent = walk.broadcast(orders["hold"], every)
        walk.each("the hold acknowledged", sent, is_answer)
        # While the swarm holds, nothing moves: the pane's context meter, the newest
        # request of the list and the request opened must all say one figure.
        ada = walk.store.myses()["Ada"]
        app.keys("Home")
        compared = False
        for _ in range(5):
            newest = walk.store.newest_request(ada)
            # The pane is drawn a moment after the request is logged: it must read the
            # same twice, a second apart, with no request logged meanwhile.
            first = meter_of(app.screen(), "Ada")
            time.sleep(1)
            dashboard = walk.look("the dashboard, holding")
            app.keys("x")
            screen = walk.wait_screen(
                "the request inspector, holding", "REQUESTS · Ada", "REQUEST #"
            )
            app.keys("Escape")
            app.wait_for("MYSIS SWARM")
            row, meter = newest_row(screen), meter_of(dashboard, "Ada")
            moved = newest != walk.store.newest_request(ada)
            if row is None or meter is None or moved or row[0] != newest or meter != first:
                continue
            compared = True
            if meter != row[1]:
                walk.fail(
                    f"Ada: the pane's context meter says {meter}, its newest request "
                    f"#{row[0]} in the request list {row[1]} tok {row[2]}\n{dashboard}\n{screen}"
                )
            break
        if not compared:
            walk.fail("Ada: the pane's meter and the request list never stood still to compare")
        sent = walk.broadcast(orders["report"], every)
        answered = walk.each("the answer to a report while holding", sent, is_answer)
        # The next nudge after the answer, and what the Mysis does in that turn (the
        # hold must stand: ``hold_breaks`` reads it).
        walk.each(
            "the next turn after the report, while holding",
            {n: e.id for n, e in answered.items()},
            lambda e: e.role == "assistant" and walk.store.turn_kind(e.mysis, e.id) == "nudge",
        )
        walk.look("the dashboard, holding after a report")

        # "mine": back to work.
        sent = walk.broadcast(orders["mine"], every)
        walk.each("a mining after the order", sent, called("mine", "travel"))
        walk.check_story(every, now=True)
        walk.look("the dashboard before quitting")
        walk.quit()

        # Start again on the same folder, at 80×24: the swarm resumes its work.
        before = walk.store.newest_memory()
        start(walk, data, env, 80, 24)
        walk.wait_screen("the relaunch at 80×24", "Ada")
        walk.each(
            "a tool call after the relaunch", dict.fromkeys(every, before), lambda e: bool(e.calls)
        )
        walk.look("the dashboard at 80×24")
        app.keys("Enter")
        walk.wait_screen("the focus view at 80×24", "CONVERSATION · Ada")
        app.keys("Escape")
        walk.wait_screen("the dashboard at 80×24 after focus", "MYSIS SWARM")
        walk.check_story(every, now=True)
        walk.quit()
    finally:
        app.kill()
    assert not walk.failures, f"{len(walk.failures)} failures:\n\n" + "\n\n".join(walk.failures)
