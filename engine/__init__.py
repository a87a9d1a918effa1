"""Pure, synchronous, deterministic Klaverjassen / Klammern rules (``design.md`` §2)."""
