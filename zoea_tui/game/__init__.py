"""game package."""
