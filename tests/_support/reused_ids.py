"""A hand-written history of ``agent`` modelled on opencode's prompts: ``codex``
deleted in 1.1.0 and ``gpt`` renamed to ``codex`` in 1.2.0; ``anthropic`` removed and
added back, edited; ``beast`` removed and its name given to another text."""

from __future__ import annotations

from typing import Any

__all__ = ["CODEX", "GPT", "STORY", "part"]

CODEX = "You are Codex, based on GPT-5.\nYou run in a sandboxed terminal.\nKeep edits small.\n"
GPT = (
    "You are opencode, an interactive CLI tool that helps users with software tasks.\n"
    "Use the tools available to you to assist the user.\n"
    "Be concise, direct and to the point.\n"
)
_ANTHROPIC = (
    "You are Claude, working as a coding agent in the user's repository.\n"
    "Read files before you edit them and run the tests after every change.\n"
    "Ask before running anything that deletes data or rewrites history.\n"
)
_ANTHROPIC_2 = _ANTHROPIC + "Prefer small commits.\n"  # added back, slightly edited
_BEAST = "Beast mode: keep going until the problem is solved.\nThink hard.\n"
_BEAST_NEW = "A different prompt now named beast.\nNothing in common with the old one.\n"


# The manifests' token figures, by text (written by hand: history reads them as they are).
_TOKENS = {CODEX: 20, GPT: 40, _ANTHROPIC: 45, _ANTHROPIC_2: 50, _BEAST: 15, _BEAST_NEW: 16}


def part(pid: str, body: str, order: int) -> dict[str, Any]:
    return {"id": pid, "body": body, "order": order, "tokens": _TOKENS[body]}


# opencode's story: codex.txt deleted in 1.1.0, then gpt.txt renamed to codex.txt in 1.2.0;
# anthropic removed and added back (edited); beast removed, its name given to another text.
STORY: dict[str, list[dict[str, Any]]] = {
    "1.0.0": [
        part("codex", CODEX, 10),
        part("gpt", GPT, 20),
        part("anthropic", _ANTHROPIC, 30),
        part("beast", _BEAST, 40),
    ],
    "1.1.0": [part("gpt", GPT, 20), part("beast", _BEAST, 40)],
    "1.2.0": [part("codex", GPT, 20), part("anthropic", _ANTHROPIC_2, 30)],
    "1.3.0": [
        part("codex", GPT, 20),
        part("anthropic", _ANTHROPIC_2, 30),
        part("beast", _BEAST_NEW, 40),
    ],
}
