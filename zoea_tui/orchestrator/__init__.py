"""The engine that runs Myses: composition service, commander, runtime, events."""
