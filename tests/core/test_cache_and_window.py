"""The cache measure and the stepped window: properties, and checks that can fail."""

from __future__ import annotations

import itertools
import json
import os

from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import Log, history_of
from zoea_tui.core import prompts
from zoea_tui.core.cache import (
    ReuseTally,
    common_prefix_chars,
    reuse,
    serialize,
    served_from_cache,
)
from zoea_tui.core.compose import compose
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.core.types import Turn
from zoea_tui.core.window import kept_count, stepped_window, window_count


@given(st.text(), st.text())
def test_common_prefix_matches_the_standard_library(a: str, b: str) -> None:
    assert common_prefix_chars(a, b) == len(os.path.commonprefix([a, b]))  # noqa: RUF071 (characters meant)


def test_reuse_counts_what_repeats_and_what_is_new() -> None:
    first = [{"role": "system", "content": "rules"}, {"role": "user", "content": "go"}]
    second = [*first, {"role": "assistant", "content": "going"}]
    same = reuse(first, second)
    # The whole of the first request but its closing bracket repeats.
    assert same.prefix_chars == len(serialize(first)) - 1
    assert 0.95 < same.share < 1 and same.uncached_tokens > 0
    changed = reuse(first, [{"role": "system", "content": "RULES"}, *first[1:]])
    assert changed.share < 0.5  # a change near byte 0 loses almost everything
    tally = ReuseTally()
    assert tally.add(1, first) is None and tally.add(2, second) is None  # per Mysis
    assert tally.add(1, second) is not None
    assert tally.report()["prefix_reuse"]["median"] == round(tally.shares[0], 4)


def test_the_engine_serves_moved_runs_only_behind_the_shared_prefix() -> None:
    cache = list("SYSTEM|abcdefgh|ijklmnop|q")
    assert served_from_cache(cache, list("SYSTEM|ijklmnop|r"), 0) == 7  # the prefix only
    assert served_from_cache(cache, list("SYSTEM|ijklmnop|r"), 4) == 7 + 9  # a moved run
    # A unit the cache does not hold stops the search: nothing behind it is served.
    assert served_from_cache(cache, list("SYSTEM|NOTE|ijklmnop|r"), 4) == 7
    # Runs shorter than the chunk are not taken.
    assert served_from_cache(cache, list("SYSTEM|ijk|mnop"), 5) == 7


@given(st.lists(st.integers(0, 3), max_size=30), st.lists(st.integers(0, 3), max_size=30))
def test_without_moved_runs_the_engine_serves_the_common_prefix(a: list[int], b: list[int]) -> None:
    prefix = len(os.path.commonprefix([a, b]))  # noqa: RUF071 (lists meant)
    assert served_from_cache(a, b, 0) == prefix
    assert prefix <= served_from_cache(a, b, 1) <= len(b)


@given(st.integers(1, 200), st.integers(1, 40), st.integers(1, 30))
def test_the_window_keeps_its_size_to_size_plus_margin_and_cuts_in_steps(
    total: int, size: int, margin: int
) -> None:
    kept = kept_count(total, size, margin)
    assert kept == total if total <= size else size <= kept <= size + margin - 1
    if total > size:
        nxt = kept_count(total + 1, size, margin)
        # Either the window grew by the new memory (the cut stayed) or it was cut back.
        assert nxt == kept + 1 or nxt == size


def _within_maximum_in_steps(counts: list[int], maximum: int, margin: int) -> bool:
    """Seed 001's bound with the steps: never more than ``maximum``; past it, each count
    is the one before plus the new memory, or a cut back to ``maximum - margin + 1``."""
    step = min(margin, max(maximum // 2, 1))
    return all(c <= maximum for c in counts) and all(
        b == a + 1 or (a == maximum and b == maximum - step + 1)
        for a, b in itertools.pairwise(counts)
    )


@given(st.integers(1, 40), st.integers(1, 30))
def test_the_window_holds_at_most_its_maximum_and_moves_in_steps_below_it(
    maximum: int, margin: int
) -> None:
    """Seed 001: "Recent Messages (last 20)": the window never holds more than
    ``max_context_messages``; it is cut back to ``max_context_messages - window_margin``
    (the margin at most half the maximum) plus the memory that arrived, then grows."""
    counts = [window_count(total, maximum, margin) for total in range(1, 3 * maximum + 50)]
    assert counts[:maximum] == list(range(1, maximum + 1))
    assert _within_maximum_in_steps(counts, maximum, margin)


def test_a_window_growing_past_its_maximum_would_fail_the_bound_check() -> None:
    """The check above rejects the window that grew to ``max + margin - 1`` (20 to 29)."""
    assert _within_maximum_in_steps([window_count(t, 20, 10) for t in range(1, 90)], 20, 10)
    assert not _within_maximum_in_steps([kept_count(t, 20, 10) for t in range(1, 90)], 20, 10)


def test_between_cuts_the_window_only_appends() -> None:
    log = Log()
    for n in range(60):
        log.say(f"m{n}")
    starts = []
    for end in range(21, 61):
        window, before = stepped_window(log.memories[:end][-(20 + 10 + 1) :], 20, 10)
        starts.append(window[0].id)
        assert before is None or before == window[0].id - 1
    # The first memory of the window moves 10 at a time, never one by one.
    moves = [b - a for a, b in itertools.pairwise(starts) if b != a]
    assert moves and all(m == 10 for m in moves)


def test_a_one_by_one_window_would_fail_the_step_check() -> None:
    """The step check above rejects a window that slides by one (margin 1)."""
    log = Log()
    for n in range(40):
        log.say(f"m{n}")
    starts = [stepped_window(log.memories[:end], 20, 1)[0][0].id for end in range(21, 40)]
    moves = [b - a for a, b in itertools.pairwise(starts) if b != a]
    assert moves and not all(m == 10 for m in moves)


def _snapshot_requests(margin: int) -> list[tuple[int | None, list[dict[str, object]]]]:
    """Compose ``snapshot-compaction`` after every memory of a status-polling session:
    (the memory before the window, the request's messages) per request."""
    log = Log()
    log.direct("Mine and watch your status.")
    out = []
    settings = ComposeSettings(max_context_messages=20, window_margin=margin)
    for n in range(40):
        name = ("get_status", "mine", "get_cargo")[n % 3]
        log.loop(f"c{n}", name, json.dumps({"tick": n, "name": name}))
        history = history_of(log.memories, settings)
        c = compose(history, "snapshot-compaction", settings)
        out.append((history.before_window_id, [dict(m) for m in c.messages]))
    return out


def _placeholder_of(message: dict[str, object]) -> bool:
    return message["role"] == "tool" and str(message["content"]).startswith("[get_")


def _call_ids(message: dict[str, object]) -> set[object]:
    calls = message.get("tool_calls") or []
    return {c["id"] for c in calls} | {message.get("tool_call_id")} - {None}  # type: ignore[index, union-attr]


def _only_leaves_out_superseded_rounds(
    requests: list[tuple[int | None, list[dict[str, object]]]],
) -> bool:
    """Between two cuts of the window, each request is the one before less the rounds of
    superseded snapshots, left out whole (their call ids gone, not rewritten), with new
    messages appended: what an engine that moves runs of its cache serves around."""
    for (start_a, a), (start_b, b) in itertools.pairwise(requests):
        if start_a != start_b:
            continue
        present = set().union(*(_call_ids(m) for m in b))
        kept = [m for m in a if m in b]
        for message in a:
            if message in b:
                continue
            ids = _call_ids(message)
            if not ids or ids & present:
                return False  # rewritten in place, not left out
        if b[: len(kept)] != kept:
            return False
    return True


def test_snapshot_compaction_only_leaves_out_superseded_rounds_between_cuts() -> None:
    """Seed 002 in every request: a new snapshot makes the one before it leave the
    request at once (with its call, which made no other call); nothing else of the
    request before changes, and only one result of each snapshot tool is sent."""
    requests = _snapshot_requests(10)
    assert _only_leaves_out_superseded_rounds(requests)
    for _, messages in requests:
        results = [m for m in messages if m["role"] == "tool"]
        names = [json.loads(str(m["content"]))["name"] for m in results]
        snapshots = [n for n in names if n != "mine"]
        assert len(snapshots) == len(set(snapshots)), "one result per snapshot tool"
        assert not any(_placeholder_of(m) for m in messages)
    assert len({start for start, _ in requests}) > 2, "the window was cut more than once"


def test_a_placeholder_written_in_place_would_fail_the_leave_out_check() -> None:
    """The check above rejects a superseded result rewritten in place (a placeholder
    where the full result was): the engine's chunk search stops at new text."""
    requests = _snapshot_requests(10)
    assert _only_leaves_out_superseded_rounds(requests)
    (start, before), (_, after) = next(
        (a, b)
        for a, b in itertools.pairwise(requests)
        if a[0] == b[0] and any(m not in b[1] for m in a[1])
    )
    gone = [i for i, m in enumerate(before) if m not in after]
    rewritten = list(after)
    for i in gone:
        message = dict(before[i])
        if message["role"] == "tool":
            message["content"] = "[get_status result omitted: a newer get_status result follows.]"
        rewritten.insert(i, message)
    assert not _only_leaves_out_superseded_rounds([(start, before), (start, rewritten)])


def _turn_aware_long_turn_messages(margin: int) -> list[list[dict[str, object]]]:
    """Compose ``turn-aware`` after every round of one long turn (a prompt, then 60
    tool loops): the requests' messages."""
    log = Log()
    opening = log.direct("Mine until the hold is full.")
    settings = ComposeSettings(max_context_messages=20, window_margin=margin)
    turns = (Turn(1, opening.id, "direct"),)
    out = []
    for n in range(60):
        log.loop(f"c{n}", "mine", json.dumps({"tick": n, "ore": n * 3}))
        history = history_of(log.memories, settings, turns=turns)
        out.append([dict(m) for m in compose(history, "turn-aware", settings).messages])
    return out


def _turn_aware_long_turn(margin: int) -> list[str]:
    """The same requests, serialized."""
    return [serialize(list(r)) for r in _turn_aware_long_turn_messages(margin)]


def _reused_after_prefix(before: list[dict[str, object]], after: list[dict[str, object]]) -> int:
    """How many messages after the shared prefix of two requests an engine that moves
    runs of its cache (llama-server's ``n_cache_reuse``) serves without evaluating them
    again: its loop, a message standing for a token, runs of one message or more."""
    shared = served_from_cache(before, after, 0)
    return served_from_cache(before, after, 1) - shared


def _rewrites(requests: list[str]) -> list[int]:
    """The requests that are not the previous one plus new messages."""
    return [
        i for i, (a, b) in enumerate(itertools.pairwise(requests), 1) if not b.startswith(a[:-1])
    ]


def test_turn_paging_rewrites_a_long_turn_only_at_its_steps() -> None:
    """Past ``max_context_messages`` memories (its opening counted) a turn is paged; each
    step rewrites what follows the turn's opening (the engine's prompt cache evaluates it
    again: on llama-server the requests at a step reuse only the shared prefix), so the
    steps come every ``window_margin`` memories, five rounds of a tool loop, and every
    other request only appends."""
    requests = _turn_aware_long_turn(10)
    steps = _rewrites(requests)
    assert len(steps) >= 8
    assert all(b - a == 5 for a, b in itertools.pairwise(steps))
    assert all("Mine until the hold is full." in requests[i] for i in steps)


def test_a_paging_step_keeps_its_rounds_right_behind_the_shared_prefix() -> None:
    """At each step the kept rounds follow the turn's opening and facts directly, as one
    run of the request before, and the note stands behind them: an engine that moves
    chunks of its cache reuses every one the request before held (seed 001's bound: the
    opening and 19 memories at most; a step keeps the newest 10, ``max_context_messages``
    20 less ``window_margin`` 10 with the opening counted, the newest round new, a result
    whose call was paged out left out with it)."""
    requests = _turn_aware_long_turn_messages(10)
    steps = [i for i, (a, b) in enumerate(itertools.pairwise(requests), 1) if b[: len(a)] != a]
    assert steps
    for i in steps:
        before, after = requests[i - 1], requests[i]
        held = [m for m in after if m in before and m["role"] in ("assistant", "tool")]
        assert len(held) >= 8  # the 10 kept, of which the newest round is new
        assert _reused_after_prefix(before, after) == len(held), "every held round reused"
        note = next(m for m in requests[i] if "not shown" in str(m["content"]))
        assert requests[i].index(note) == len(requests[i]) - 1, "the step ends with its note"


def test_a_note_in_front_of_the_kept_rounds_would_fail_the_reuse_check() -> None:
    """The check above rejects the note standing before the kept rounds: the engine's
    chunk search stops at the note, which the request before did not hold."""
    requests = _turn_aware_long_turn_messages(10)
    step = next(i for i, (a, b) in enumerate(itertools.pairwise(requests), 1) if b[: len(a)] != a)
    moved = list(requests[step])
    note = moved.pop()
    shared = next(
        i for i, (a, b) in enumerate(zip(requests[step - 1], moved, strict=False)) if a != b
    )
    moved.insert(shared, note)
    assert _reused_after_prefix(requests[step - 1], requests[step]) >= 8
    assert _reused_after_prefix(requests[step - 1], moved) == 0


def _window_cuts(strategy: str) -> list[tuple[list[dict[str, object]], list[dict[str, object]]]]:
    """``strategy`` composed after every round of 60 tool loops with no prompt to pin
    (the window's first message is a call, so a note opens it): the pairs of requests
    where the window was cut."""
    log = Log()
    settings = ComposeSettings(max_context_messages=20, window_margin=10)
    requests = []
    for n in range(60):
        log.loop(f"c{n}", "mine", json.dumps({"tick": n, "ore": n * 3}))
        history = history_of(log.memories, settings)
        requests.append([dict(m) for m in compose(history, strategy, settings).messages])
    # A cut moves the window's first memory (each request also closes with a nudge and
    # the state: they change every request, wherever the window starts).
    return [(a, b) for a, b in itertools.pairwise(requests) if a[2] != b[2]]


def test_a_window_cut_keeps_its_memories_right_behind_the_same_note() -> None:
    """At every cut of the window strategies after the first, the note that opens the
    request is the one the request before opened with, and every memory of the request
    before that the window still holds follows it as one run: an engine that moves
    chunks of its cache reuses them all."""
    for strategy in ("sliding-window", "snapshot-compaction"):
        cuts = _window_cuts(strategy)
        assert len(cuts) >= 4, strategy
        for before, after in cuts[1:]:
            assert before[1] == after[1] == {"role": "user", "content": prompts.GAP_NOTE}
            held = [m for m in after if m in before and m["role"] in ("assistant", "tool")]
            # Cut back to ``max_context_messages - window_margin`` (10), the newest new.
            assert len(held) >= 9, strategy
            assert _reused_after_prefix(before, after) >= len(held) - 1, strategy


def test_a_note_naming_the_cut_would_fail_the_window_reuse_check() -> None:
    """The check above rejects a note that changes at each cut (it named the first
    memory left out): the engine's chunk search stops at the changed note."""
    before, after = _window_cuts("sliding-window")[1]
    renamed = [after[0], {"role": "user", "content": "[Earlier messages before #99.]"}, *after[2:]]
    assert _reused_after_prefix(before, after) >= 9
    assert _reused_after_prefix(before, renamed) == 0


def test_paging_by_one_memory_would_fail_the_step_check() -> None:
    """The check above rejects paging that moves with every round (margin 1)."""
    steps = _rewrites(_turn_aware_long_turn(1))
    assert not all(b - a == 5 for a, b in itertools.pairwise(steps))


def test_a_paged_recorded_turn_holds_seed_001s_twenty_memories() -> None:
    """Seed 001: "Recent Messages (last 20)", for a recorded turn too: the turn's opening
    and its rounds stay within ``max_context_messages`` in every request of a 60-round
    turn (before issue 41 paging grew the turn to 29 past its opening)."""
    for request in _turn_aware_long_turn_messages(10):
        rounds = [m for m in request if m["role"] in ("assistant", "tool")]
        assert len(rounds) + 1 <= 20, f"{len(rounds)} rounds beside the opening"
