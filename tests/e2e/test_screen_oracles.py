"""The first-five-minutes test's oracles reject what they should: each is shown a screen
of the real app (captured with tmux) and the same screen made bad."""

from __future__ import annotations

from tests.e2e.screen_oracles import (
    error_lines,
    figure_disagreements,
    figures_compared,
    meter_of,
    mid_word_cuts,
    newest_row,
    words,
)

DASHBOARD = """\
╭─ MYSIS SWARM ─────────────────────╮╭─ LAST REQUEST SENT · Ada ──────────────────────╮
│╭─ ● Ada ────────────────────────╮││ turn-aware · 23 msg · ~8,486/32,768 tok · valid │
││ ● trading · ↻0/3               │││ sent 11:42:41 T45                               │
││ autopilot (rule-based)         │││ 95% repeated · holds 99% of the last request    │
││ ctx ▰▰▰▱▱▱▱▱▱▱ 8.5k/32.8k      │││ turn began at memory #1 · start                 │
││ » Status report (Ada): credits │││                                                 │
││ 1164, cargo 50/50              │││                                                 │
│╰─────────────────────── @Ada ─╯││                                                 │
╰─────────────────────────────────╯╰─────────────────────────────────────────────────╯
  ◆ MCP  3        tick T45       ● 3 running  ◦ 0 idle  ◌ 0 stopped  ✖ 0 errored  · 3/16
"""

FOCUS = """\
 ◆ MYSIS Ada  (1/3)  ⚒ running · mining   autopilot (rule-based)   @Ada   nudges 0/3   last request
 7.4k/32.8k   strategy turn-aware
────────────────────────────────────────────────────────────────────────────────────────────────────
╭─ CONVERSATION · Ada ─────────────────────────────────────╮╭─ CONTEXT PREVIEW ────────────────────╮
│ 11:42:35 T39 AI  #207                                    ││ turn-aware · 23 msg · ~7,441/32,768  │
│   ▸ reasoning (1 line): At the belt with cargo 32/50:    ││ tok · valid                          │
│   mining until the hold is full.                         ││ sent 11:42:36 T40                  ▃ │
╰──────────────────────────────────────────────────────────╯╰──────────────────────────────────────╯
"""

INSPECTOR = """\
╭─ REQUESTS · Ada · newest first ──────╮╭─ SENT AND RECEIVED ──────────────────────────────────────╮
│ #82 11:42:27 ok · 0.01 s             ││ REQUEST #82  11:42:27 · turn-aware · turn 1 · nudge      │
│   turn-aware · 17 msgs · 8.2k tok    ││ level 0 · tools 5799 tok                                 │
│ reported                             ││ 8,203 tok estimated · 8,203 prompt tok reported · 0.01   │
│ #79 11:42:26 ok · 0.00 s             ││ s · ok                                                 ▅ │
│   turn-aware · 15 msgs · 8.1k tok    ││ ✓ recomposed from the log: byte-identical to what was    │
│ reported                             ││ sent (sha256 eca999fa6afd…)                              │
╰──────────────────────────────────────╯╰──────────────────────────────────────────────────────────╯
"""

VOCABULARY = words("Status report credits cargo mining until the hold is full Pausing in to")


def known(word: str) -> bool:
    return word in VOCABULARY


def test_the_good_screens_pass_every_oracle() -> None:
    for screen in (DASHBOARD, FOCUS, INSPECTOR):
        assert error_lines(screen) == []
        assert mid_word_cuts(screen, known) == []
        assert figure_disagreements(screen) == []
        assert figures_compared(screen) == 1
    assert figures_compared(DASHBOARD.replace("LAST REQUEST SENT", "LAST REQUEST")) == 0


def test_an_error_line_is_caught_but_not_the_status_bars_zero() -> None:
    assert error_lines(DASHBOARD) == []
    bad = DASHBOARD.replace("✖ 0 errored", "✖ 1 errored")
    assert error_lines(bad) == [bad.splitlines()[-1].rstrip()]
    assert error_lines("│ ✖ : unreachable: Could not reach …/v1/models │")
    assert error_lines("an unexpected answer")
    assert error_lines("Traceback (most recent call last):")


def test_a_word_cut_by_a_wrap_is_caught() -> None:
    good = "││ » Status report (Ada): credits │\n││ 1164, cargo 50/50              │\n"
    assert mid_word_cuts(good, known) == []
    bad = "││ » Status report (Ada): Cre     │\n││ dits 1164, cargo 50/50         │\n"
    # "Cre" stops short of the edge (blanks after it): a wrap at a word's boundary.
    assert mid_word_cuts(bad, known) == []
    bad = "││ » Status report (Ada):     Cre │\n││ dits 1164, cargo 50/50         │\n"
    cuts = mid_word_cuts(bad, known)
    assert len(cuts) == 1 and cuts[0].startswith("Cre|dits")


def test_a_cut_in_the_conversation_and_two_whole_words_across_lines() -> None:
    screen = (
        "│   ▸ reasoning (1 line): At the belt with cargo 32/50: P│\n"
        "│   ausing until the hold is full.                       │\n"
    )
    assert [c.split(":")[0] for c in mid_word_cuts(screen, known)] == ["P|ausing"]
    two_words = screen.replace(": P│", ": i│").replace("│   ausing", "│   nto, u")
    assert mid_word_cuts(two_words.replace("i│", "in│").replace("nto,", "to, "), known) == []


def test_a_pane_that_disagrees_with_the_request_panel_is_caught() -> None:
    bad = DASHBOARD.replace("8.5k/32.8k", "9.5k/32.8k")
    [found] = figure_disagreements(bad)
    assert "Ada" in found and "9.5k" in found and "~8,486" in found


def test_a_focus_header_that_disagrees_with_its_preview_is_caught() -> None:
    bad = FOCUS.replace(" 7.4k/32.8k", " 7.8k/32.8k")
    [found] = figure_disagreements(bad)
    assert "7.8k" in found and "~7,441" in found
    # The preview of the next request (composed now) is another request: not compared.
    upcoming = bad.replace("sent 11:42:36 T40   ", "nothing sent        ")
    assert "nothing sent" in upcoming
    assert figure_disagreements(upcoming) == []
    assert figures_compared(upcoming) == 0


def test_a_request_row_that_disagrees_with_the_opened_request_is_caught() -> None:
    bad = INSPECTOR.replace("17 msgs · 8.2k tok", "17 msgs · 9.5k tok")
    [found] = figure_disagreements(bad)
    assert found.startswith("request #82") and "9.5k" in found
    # The same figure said to be another one (an estimate shown as the server's count).
    sent = "8,203 tok estimated · 8,203 prompt tok reported · 0.01"
    bad = INSPECTOR.replace(sent, "8,203 tok estimated · 0.01".ljust(len(sent)))
    [found] = figure_disagreements(bad)
    assert "8.2k tok reported" in found and "8,203 estimated" in found


def test_a_row_listed_in_flight_is_held_to_the_estimate() -> None:
    # The list was read while the call was in flight; the request opened after it ended.
    first = "#82 11:42:27 ok · 0.01 s"
    listed = INSPECTOR.replace(first, "#82 11:42:27 in flight".ljust(len(first))).replace(
        "│ reported                             ││ 8,203",
        "│ estimated                            ││ 8,203",
    )
    assert "in flight" in listed and "│ estimated " in listed
    assert figure_disagreements(listed) == []
    assert figures_compared(listed) == 1
    bad = listed.replace("17 msgs · 8.2k tok", "17 msgs · 9.5k tok")
    [found] = figure_disagreements(bad)
    assert "9.5k tok estimated" in found


def test_the_meter_and_the_newest_row_read_as_shown() -> None:
    assert meter_of(DASHBOARD, "Ada") == "8.5k"
    assert meter_of(DASHBOARD, "Brin") is None
    assert newest_row(INSPECTOR) == (82, "8.2k", "reported")
