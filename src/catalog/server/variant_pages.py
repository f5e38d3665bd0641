"""The page of a catalog's variants: which part of each group of alternatives each
model gets across a range of releases, and where a variant drifted from its
siblings (:mod:`catalog.changes.variants`).

The page is at ``/variants/NAME?model=ID&model=ID&spec=SPEC&agent=NAME``; a form on
it asks for the models (one per line, or comma-separated) and the range. Its work is
bounded: at most :data:`MAX_MODELS` models and :data:`MAX_VERSIONS` releases a page.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse

from catalog.changes.variants import variants
from catalog.errors import UsageError
from catalog.io.catalog_path import check_name
from catalog.schema.manifest import MAIN_AGENT
from catalog.server.deps import State
from catalog.server.templating import page

__all__ = ["MAX_MODELS", "MAX_VERSIONS", "router"]

router = APIRouter(include_in_schema=False)

MAX_MODELS = 16
"""The most models one page assembles for."""
MAX_VERSIONS = 200
"""The most releases one page assembles and compares."""

NamePath = Annotated[str, Path(min_length=1, max_length=200, description="a catalog's name")]
ModelQuery = Annotated[
    list[str], Query(max_length=MAX_MODELS, description="model ids (each may list several)")
]


def _models(given: list[str]) -> list[str]:
    """The model ids of the ``model`` fields, each of which may hold several (commas,
    lines), in order and each once."""
    found = [m.strip() for text in given for m in text.replace(",", "\n").splitlines()]
    models = list(dict.fromkeys(m for m in found if m))
    if len(models) > MAX_MODELS:
        raise UsageError(
            f"{len(models)} models: a page shows at most {MAX_MODELS}",
            hint="ask for fewer models",
        )
    if any(len(model) > 200 for model in models):
        raise UsageError("a model id is longer than 200 characters")
    return models


@router.get("/variants/{name}", response_class=HTMLResponse)
def variants_page(
    name: NamePath,
    request: Request,
    state: State,
    model: ModelQuery = [],  # noqa: B006 - FastAPI copies a query's default
    spec: Annotated[str | None, Query(max_length=100)] = None,
    agent: Annotated[str, Query(min_length=1, max_length=100)] = MAIN_AGENT,
) -> HTMLResponse:
    """Which part of each group each model gets in each release ``spec`` selects, and
    the drift between consecutive releases."""
    library = state.library
    models = _models(model)
    refs = library.catalog_path.select(check_name(name), spec or None)
    if len(refs) > MAX_VERSIONS:
        raise UsageError(
            f"{len(refs)} versions of {name!r}: a page compares at most {MAX_VERSIONS}",
            hint="narrow the range with a specifier, e.g. spec=>=1.0",
        )
    catalogs = [library.load(f"{name}@=={ref.version}") for ref in refs]
    found = variants(catalogs, models, agent=agent)
    context = {
        "page": "variants",
        "name": name,
        "models": models,
        "spec": spec or "",
        "agent": agent,
        "found": found,
    }
    return page(request, "variants.html", context)
