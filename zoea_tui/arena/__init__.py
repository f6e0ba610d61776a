"""The arena (issue 14): SMBench's scenarios played offline on the embedded world.

``scenarios`` (what each scenario asks, its budget and success levels), ``scoring``
(SMBench's published formulas, pure), ``metrics`` (what a run achieved, read from the
world and the run's events), ``meter`` (the provider wrapper that spends the tick budget
and counts tokens), ``runner`` (one run, and a whole arena), ``report`` (the JSON
contract, the table and the Markdown leaderboard). Only ``ui`` imports this package; it
never imports Textual or Rich.
"""
