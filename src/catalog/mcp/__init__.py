"""``catalog mcp``: the catalogs as prompts of a Model Context Protocol server.

:mod:`catalog.mcp.library` says what is offered (prompts, their arguments, part
bodies) without the protocol; :mod:`catalog.mcp.server` offers it through the
official ``mcp`` SDK (the ``mcp`` extra), over standard input and output or
streamable HTTP.
"""
