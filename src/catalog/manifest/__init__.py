"""The catalog format: records of ``catalog.toml`` and of its ``[sources]`` table."""
