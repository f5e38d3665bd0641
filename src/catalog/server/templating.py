"""The pages' templates: Jinja2 files shipped in the package (``templates/``), rendered
through FastAPI's template support with the package's one environment
(:func:`catalog.html.environment`: autoescaped, hidden characters shown), which
also finds the templates pages share with ``catalog diff --format html``.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import PackageLoader

from catalog.html import environment

__all__ = ["page"]

_templates = Jinja2Templates(env=environment(PackageLoader("catalog.server", "templates")))


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
