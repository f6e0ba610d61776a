"""The Textual command center: the app, its screens and widgets (no engine logic here).

Start it with :func:`zoea_tui.ui.app.run_app`; tests build :class:`zoea_tui.ui.app.ZoeaApp`
around a real :class:`~zoea_tui.orchestrator.commander.Commander`.
"""

import os

#: Milliseconds Textual's input driver waits after a lone Escape byte before it reports
#: the Escape key (it may be the start of a key's escape sequence). Textual waits 100;
#: Escape closes every view here, and a sequence's bytes arrive together even over ssh,
#: so the app waits less. A user's own ``ESCDELAY`` wins (as in curses).
ESCAPE_DELAY_MS = 25

# Read once when Textual's constants are imported: set before anything imports Textual.
os.environ.setdefault("ESCDELAY", str(ESCAPE_DELAY_MS))
