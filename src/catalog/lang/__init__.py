"""The condition language: parse, check names, compile once to closures.

One small expression language serves the ``when`` conditions of parts and the
``{{ placeholders }}`` / ``{% blocks %}`` of part bodies. An expression is
parsed with :func:`ast.parse` and every node is checked against a whitelist;
each allowed node type has a handler that builds a Python closure. The
closures are built once, when the catalog loads; evaluating an expression is
then a chain of plain function calls. Python code is never executed.

Grammar
-------
* literals: text (``"a"``, ``'a'``), integers, decimals, ``true``/``false``/
  ``none`` (also ``True``/``False``/``None``), lists and tuples ``[1, "a"]``;
* names, checked against the names the caller declares (an unknown name is an
  error with a did-you-mean hint), and attribute paths ``env.os``, checked
  against the :mod:`catalog.lang.shapes` of those names;
* ``and``, ``or``, ``not`` (short-circuit, Python semantics: ``a or b`` gives
  ``a`` when ``a`` is truthy), comparisons ``== != < <= > >=`` (chains such
  as ``1 < x < 5`` allowed), ``in`` / ``not in``, ``is none`` /
  ``is not none`` (no other ``is``), unary ``-``, binary ``+`` and ``-``,
  ``a if cond else b``, parentheses;
* indexing ``x[0]``, ``x[-1]``, ``x["key"]``, ``x[i]`` (no slices);
* calls of the functions in :data:`FUNCTIONS` only, positional arguments
  only, argument count checked when compiling.

Everything else is refused when compiling, with :class:`ExpressionError`
naming the construct and the 1-based column: names and attributes (and text
keys) starting with ``_``, lambda, comprehensions, ``:=``, f-strings,
``*``/``/``/``**``/``%`` and bit operators, dict and set literals, method
calls, keyword arguments, slices.

Columns count characters from the start of the source, 1-based; in a source
spanning several lines the newlines count as characters too.

Limits
------
* :data:`MAX_SOURCE_LENGTH` (1000) characters, checked before parsing;
* :data:`MAX_NODES` (256) expression nodes;
* :data:`MAX_DEPTH` (32) levels of nesting;
* :data:`MAX_TEXT_LENGTH` (10 million) characters or items for a text or list
  built by ``+``, ``join``, ``replace`` or ``indent`` at evaluation time;
* :data:`MAX_LIST_LENGTH` (1 million) items for a list built by ``split``,
  ``lines``, ``flatten`` or ``+``;
* a fixed evaluation budget, :data:`MAX_EVALUATION_COST` (50 million units),
  for one condition or one body render, placeholders and loops included:
  function calls spend what they read and build (a character of text is one
  unit, a list or mapping item :data:`ITEM_COST`), ``+`` what it joins, ``in``
  the list or text it searches, a body what it writes and each loop
  iteration. Past it, :class:`~catalog.errors.EvaluationBudgetError` (an
  :class:`EvaluationError`) names the expression, and assembly adds the
  catalog's file and the part.

The language has no loops, no recursion and no way to define anything, and
every operation that can grow a value is bounded, so the time and memory an
evaluation takes are bounded by the size of the source and of the data read,
and by the budget whatever the data.

Functions
---------
:data:`FUNCTIONS` is the whole list, each with its argument counts and a
one-line description: ``len str int bool lower upper strip collapse join
split lines replace startswith endswith contains truncate default unique
sorted first last any all min max pluck json indent basename dirname keys
values flatten intersect compact pick escape brackets expanduser strftime``
(:mod:`catalog.lang.timefmt` lists the date and time directives). They are lenient
with none, which safe navigation produces: text functions read none as
``""``, list functions as an empty list, and ``first``/``last``/``min``/
``max`` of nothing give none. ``str(x)`` is
:func:`render_value`, so ``str(true)`` is ``"true"``. Results that come
from sets or mappings are sorted (``keys``, ``values``, ``sorted``, ``json``).

Evaluation
----------
* a name missing from the scope is none;
* ``x.attr`` reads, without ever calling :func:`getattr` on an arbitrary
  name: a mapping's key (``x.get("attr")``), a record's declared field, a
  pydantic model's declared or computed field (or extra field), a
  dataclass instance's declared field;
  anything else, and none, gives none (``output_style.name`` is none when
  ``output_style`` is none);
* ``x[i]`` indexes text and lists with a number and mappings with a key; an
  index out of range, a missing key or a none container gives none; a text key
  on a model reads the field as ``x.attr`` does;
* ``x in none`` is false, ``x not in none`` is true;
* an operation that fails on the values it meets (``1 < "a"``, ``"a" - 1``)
  raises :class:`EvaluationError` naming the operation and the operand types;
  a failing function raises :class:`EvaluationError` naming the function.

Results never depend on hash order: functions that read sets or mappings sort.
"""
