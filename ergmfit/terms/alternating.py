"""alternating terms (see registry)."""
