"""The Textual command center: the app, its screens and widgets (no engine logic here).

Start it with :func:`zoea_tui.ui.app.run_app`; tests build :class:`zoea_tui.ui.app.ZoeaApp`
around a real :class:`~zoea_tui.orchestrator.commander.Commander`.
"""
