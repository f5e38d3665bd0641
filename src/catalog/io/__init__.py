"""Everything that touches files: finding catalogs (the catalog path and entry points),
bounded text reads, TOML with positions, loading a version, stamping, lock files and
atomic writes.

This is where a file's problems are placed at their line, once.
"""
