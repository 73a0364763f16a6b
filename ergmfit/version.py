"""The version of ergmfit (also in pyproject.toml)."""
__version__ = "0.1.0"
