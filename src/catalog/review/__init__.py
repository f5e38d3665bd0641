"""Reviewing prompt changes where code is reviewed, and what a prompt costs.

:mod:`~catalog.review.prices` holds the per-model figures (shipped with their
date and source, overridable); :mod:`~catalog.review.economics` works out a
prompt's cached prefix and its cost per conversation;
:mod:`~catalog.review.revisions` reads the catalogs of a git revision (or the
working tree) without running anything the repository configures;
:mod:`~catalog.review.compare` assembles both sides of a change;
:mod:`~catalog.review.report` and :mod:`~catalog.review.markdown` render it,
:mod:`~catalog.review.bounds` tells whether it grew beyond ``--fail-on``, and
:mod:`~catalog.review.github` posts it as one pull-request comment.
"""

__all__: list[str] = []
