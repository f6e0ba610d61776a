"""The one door for untrusted text (model output, tool results, user input) into the UI.

Everything shown that did not come from this package goes through :func:`clean` (terminal
escape sequences, control characters and bidirectional overrides removed) and is then wrapped
in a :class:`rich.text.Text` or :class:`textual.content.Content`, never parsed as markup.
Long text is cut with :func:`clip` before it is cleaned, so a 2 MB tool result costs a few
kilobytes of work. The value of every secret's field (a password, a session id, a token)
is masked on the way (``core/redaction.py``): a screenshot or a screen share shows that
a secret is kept, never its value.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from ..core.redaction import mask_text
from ..core.terminal_text import clean as clean_terminal_text

__all__ = ["Clipped", "clean", "clip", "one_line"]


def clean(text: object) -> str:
    """Untrusted text safe to show: no terminal escapes or control characters, no
    secret's value."""
    return mask_text(clean_terminal_text(text))


@dataclass(frozen=True, slots=True)
class Clipped:
    """A piece of text cut for display, and how much was left out."""

    text: str
    hidden_chars: int = 0
    hidden_lines: int = 0

    @property
    def truncated(self) -> bool:
        """True when something was left out."""
        return self.hidden_chars > 0


def clip(text: str, max_chars: int, max_lines: int | None = None) -> Clipped:
    """The cleaned start of ``text``: at most ``max_chars`` characters and ``max_lines`` lines."""
    raw = text if isinstance(text, str) else str(text)
    # Cut first (with a margin for the escapes that cleaning removes), then clean.
    window = raw[: max_chars * 2 + 64]
    head = clean(window)
    cut = head[:max_chars]
    if max_lines is not None:
        lines = cut.split("\n")
        if len(lines) > max_lines:
            cut = "\n".join(lines[:max_lines])
    if len(cut) == len(head) and len(window) == len(raw):
        return Clipped(cut)
    hidden_chars = max(len(raw) - len(cut), 1)
    return Clipped(cut, hidden_chars, raw.count("\n", len(cut)))


def one_line(text: str, limit: int = 400) -> str:
    """A cleaned single line: newlines and runs of blanks flattened, cut to ``limit``."""
    head = clean(text[: limit * 2 + 64])
    flat = " ".join(head.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def plain(text: object, style: str = "") -> Text:
    """Untrusted text as a :class:`Text` (cleaned, never markup)."""
    return Text(clean(text), style=style, no_wrap=False)
