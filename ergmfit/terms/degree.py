"""degree terms (see registry)."""
