"""One way to write a duration: the command line's progress, the arena's estimates, the docs."""

from __future__ import annotations

from zoea_tui.core.durations import duration_text


def test_a_duration_reads_to_the_second_and_an_estimate_to_its_largest_unit() -> None:
    assert [duration_text(s) for s in (-1, 42.4, 185, 3_725)] == [
        "0 s",
        "42 s",
        "3 min 05 s",
        "1 h 02 min",
    ]
    assert [duration_text(s, rough=True) for s in (45, 720, 9_000)] == ["45 s", "12 min", "2.5 h"]
