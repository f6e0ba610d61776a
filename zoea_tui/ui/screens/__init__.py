"""The command center's screens and dialogs."""
