"""The dashboard's banner."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from .. import formatting as fmt


def banner_text(width: int) -> Text:
    """``◆ Z O E A   N O V A ◆  COMMAND CENTER`` centred in ``width`` cells."""
    text = Text(justify="center", no_wrap=True)
    text.append("◆ ", style=fmt.BRAND)
    text.append("Z O E A   N O V A", style=f"bold {fmt.TEAL}")
    text.append(" ◆", style=fmt.BRAND)
    if width >= 50:
        text.append("   COMMAND CENTER", style=f"bold {fmt.ASSISTANT}")
    return text


class Banner(Static):
    """The name of the program, in the colours of the command center."""

    def render(self) -> Text:
        """The banner, fitted to the width."""
        return banner_text(self.size.width)
