"""triad terms (see registry)."""
