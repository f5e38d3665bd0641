"""The pages' templates: Jinja2 files shipped in the package (``templates/``), rendered
through FastAPI's template support.

Every printed value is escaped (autoescaping, on for ``.html``) and shown
through :func:`catalog.lang.visible.visible` first (the environment's
``finalize``): a control, bidi, zero-width or tag character in a part's name
or a summary is written ``<U+XXXX>``, so it can neither act nor reorder a
label. A value the page's script sends back as it is (a tool's name in
``data-tool``, a variable's default in an input) is marked ``|exact``:
escaped, not rewritten. Markup built by the templates themselves (a macro's
output) is printed as it is.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from catalog.lang.visible import script_pattern, visible

__all__ = ["Exact", "page"]


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
    """``1 change``, ``2 changes``: a count and its word (``words`` when not ``word+s``)."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("catalog.server", "templates"),
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


_templates = Jinja2Templates(env=_environment())


def page(
    request: Request,
    name: str,
    context: dict[str, Any],
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> HTMLResponse:
    """The page rendered from template ``name`` (in ``templates/``) with ``context``."""
    return _templates.TemplateResponse(request, name, context, status_code=status, headers=headers)
