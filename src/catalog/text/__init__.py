"""Text helpers used across the package, below the language and everything else.

* :mod:`catalog.text.visible`: hidden characters (controls, bidirectional marks,
  zero-width spaces) made visible before text reaches a terminal, a page or JSON;
* :mod:`catalog.text.globs`: the one glob matcher (``*``, ``**``, ``?``, ``[...]``,
  ``{a,b}``), linear in the path and the pattern;
* :mod:`catalog.text.suggest`: the did-you-mean hints of every unknown-name error.
"""
