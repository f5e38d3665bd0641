"""HTML written from templates, never from strings: one autoescaped Jinja2 environment
for every page the package writes, the web UI's and ``catalog diff --format html``'s
alike, and the templates and style sheets they share."""

from catalog.html._environment import Exact, environment, render, stylesheet

__all__ = ["Exact", "environment", "render", "stylesheet"]
