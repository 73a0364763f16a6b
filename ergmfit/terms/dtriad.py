"""dtriad terms (see registry)."""
