"""The prompts say what seeds 000, 001 and 002 ask of them: search guidance, the captain's
log, and the search reminder in every nudge and gap note."""

from __future__ import annotations

import re

from zoea_tui.core import prompts

#: Seed 000's rule, verbatim.
CONTEXT_RULE = "Context is limited - use search tools for older information."
#: Each search tool with what the prompt must say about when to use it (seed 002: "when
#: and how to use zoea_search_messages and zoea_search_reasoning").
GUIDANCE = {
    "zoea_search_messages": ("no longer see", "placeholder"),
    "zoea_search_reasoning": ("why you",),
    "zoea_search_broadcasts": ("standing orders",),
    "zoea_read_memory": ("omitted or truncated",),
}


def search_guidance_gaps(template: str) -> list[str]:
    """What a system prompt template lacks of the seeds' search guidance ([] when none)."""
    text = prompts.render_system_prompt(template)
    gaps = [] if CONTEXT_RULE in text else ["the seed 000 rule"]
    for tool, whens in GUIDANCE.items():
        line = next((ln for ln in re.split(r"\n- ", text) if ln.startswith(tool)), None)
        if line is None or not re.search(rf"{tool}\(query|{tool}\(memory_id", line):
            gaps.append(f"{tool}: how to call it")
            continue
        gaps += [f"{tool}: when ({w})" for w in whens if w not in " ".join(line.split())]
    if "captains_log_add" not in text or "lasting memory" not in text:
        gaps.append("the captain's log as lasting memory")
    return gaps


def test_the_system_prompt_tells_when_and_how_to_search() -> None:
    assert search_guidance_gaps(prompts.SYSTEM_PROMPT_TEMPLATE) == []


def test_the_guidance_check_names_what_a_prompt_lacks() -> None:
    stripped = prompts.SYSTEM_PROMPT_TEMPLATE.replace(CONTEXT_RULE, "Context is limited.")
    stripped = re.sub(r"- zoea_search_reasoning\(.*?\n(?=- )", "", stripped, flags=re.S)
    stripped = stripped.replace("standing orders", "orders")
    assert search_guidance_gaps(stripped) == [
        "the seed 000 rule",
        "zoea_search_reasoning: how to call it",
        "zoea_search_broadcasts: when (standing orders)",
    ]
    assert search_guidance_gaps("You are a pilot.")[-1] == "the captain's log as lasting memory"


def test_every_nudge_and_gap_note_ends_with_the_search_reminder() -> None:
    assert prompts.SEARCH_REMINDER == "If you need past data, use zoea_search tools."
    for level in (1, 2, 3):
        assert prompts.nudge_text(level).endswith(prompts.SEARCH_REMINDER)
    assert prompts.GAP_NOTE.endswith(prompts.SEARCH_REMINDER + "]")
