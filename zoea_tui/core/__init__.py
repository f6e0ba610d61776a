"""Pure domain: memories, the composer and its strategies, the validator, prompts.

Nothing in this package does I/O or imports Textual or Rich.
"""
