"""The Jinja2 environment every page is rendered with.

Every printed value is escaped (autoescaping, on for ``.html``) and shown
through :func:`catalog.text.visible.visible` first (the environment's
``finalize``): a control, bidi, zero-width or tag character in a part's name
or a summary is written ``<U+XXXX>``, so it can neither act nor reorder a
label. A value a page's script sends back as it is (a tool's name in
``data-tool``) is marked ``|exact``: escaped, not rewritten. Markup built by
the templates themselves (a macro's output) is printed as it is.

Jinja2 is imported when the first environment is made, so commands that write
no HTML never load it.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from catalog.text.visible import script_pattern, visible

if TYPE_CHECKING:
    from jinja2 import BaseLoader, Environment

__all__ = ["Exact", "environment", "render", "stylesheet"]


class Exact(str):
    """A text printed exactly (escaped, not through :func:`visible`): the ``exact``
    filter's result."""

    __slots__ = ()


def _shown(value: Any) -> Any:
    """What a template prints for ``value``: a text made visible, unless it is markup
    or marked exact; anything else as it is."""
    if isinstance(value, str) and not isinstance(value, Markup | Exact):
        return visible(value)
    return value


def _plural(count: int, word: str, words: str | None = None) -> str:
    """``1 change``, ``2 changes``: a count and its word (``words`` when not ``word+s``),
    the ``plural`` filter."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def environment(*loaders: BaseLoader) -> Environment:
    """A new environment that looks for a template in ``loaders`` first, then among
    this package's templates (``templates/``)."""
    from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=ChoiceLoader([*loaders, PackageLoader("catalog.html", "templates")]),
        autoescape=select_autoescape(["html"]),
        finalize=_shown,
        undefined=StrictUndefined,  # a misspelt name fails the test that renders it
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.filters["exact"] = Exact
    env.filters["plural"] = _plural
    env.globals["hidden_pattern"] = Exact(script_pattern())
    return env


@functools.cache
def _own() -> Environment:
    return environment()


def render(name: str, **context: Any) -> str:
    """The template ``name`` of this package rendered with ``context``."""
    return _own().get_template(name).render(context)


def stylesheet(name: str) -> Markup:
    """The style sheet ``name`` shipped in ``static/``, as markup: the package's own
    text, printed as it is inside a ``<style>`` element."""
    return Markup(resources.files("catalog.html").joinpath("static", name).read_text("utf-8"))
