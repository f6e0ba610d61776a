"""The app's worker groups that are part of no key's effect, named once.

They stand below every layer of the UI: the app and the screens start workers in them,
and the benchmark's marks (:mod:`.textual_compat.frame_marks`) leave them out when they
wait for a key's whole effect to be painted.
"""

from __future__ import annotations

#: The worker that opens the engine (it ends, but with no key).
ENGINE_GROUP = "engine"
#: The worker that reads the engine's event bus (it never ends).
ENGINE_EVENTS_GROUP = "engine-events"
#: The worker group of what is read ahead of the commander's next key while it rests
#: (:meth:`~zoea_tui.ui.screens.base.ZoeaScreen.when_rested`).
AHEAD_GROUP = "ahead"

#: Worker groups that are part of no key's effect: those that never finish, and the
#: work done ahead of keys.
NOT_A_KEYS_EFFECT = frozenset({ENGINE_GROUP, ENGINE_EVENTS_GROUP, AHEAD_GROUP})
