"""The pure core: definitions, compiled parts, per-agent plans, assembly and the
assembled prompt, and the :class:`~catalog.engine.catalog.Catalog` that offers them.

Nothing here reads or writes a file: given the same catalog version and context,
the engine gives the same bytes.
"""
