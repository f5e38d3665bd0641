"""``catalog serve``: dispatch's template routes, per-conversation prompts, the library's
read operations as JSON (with an OpenAPI description) and a web UI, on FastAPI.

``catalog.server.app.create_app(ServerSettings(...))`` builds the ASGI application;
it needs the ``serve`` extra (``pip install 'agent-prompt-catalog[serve]'``), which only
``catalog.server.app`` and the route modules import, so this package and its
settings (``catalog.server.state``) load without it. See docs/serving.md.
"""
