"""The command center's widgets (each one shows; none holds engine logic)."""
