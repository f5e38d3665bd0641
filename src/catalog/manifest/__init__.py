"""The catalog format: pydantic models of ``catalog.toml`` and of its ``[sources]`` table."""
