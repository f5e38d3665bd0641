"""Five hand-written releases of ``agent`` whose ``provider`` group holds one variant per
model family: ``gpt`` drifts in 1.1.0, ``anthropic``'s condition in 1.2.0, ``gemini``
comes in 1.3.0 and every variant changes in 1.4.0."""

from __future__ import annotations

from typing import Any

__all__ = ["GPT", "MODELS", "RELEASES", "member"]

GPT = 'startswith(model, "gpt-")'
_CLAUDE = 'contains(model, "claude")'
_GEMINI = 'startswith(model, "gemini")'


def member(pid: str, order: int, body: str, when: str = "true") -> dict[str, Any]:
    return {"id": pid, "order": order, "group": "provider", "when": when, "body": body}


def _release(gpt: str, claude: str, default: str, **more: Any) -> list[dict[str, Any]]:
    parts = [
        {"id": "intro", "order": 1, "body": "You are an agent."},
        member("gpt", 10, gpt, GPT),
        member("anthropic", 11, claude, more.get("claude_when", _CLAUDE)),
        member("default", 30, default),
    ]
    if "gemini" in more:
        parts.append(member("gemini", 12, more["gemini"], _GEMINI))
    return parts


RELEASES = {
    "1.0.0": _release("GPT one.", "Claude one.", "Default one."),
    "1.1.0": _release("GPT two.", "Claude one.", "Default one."),  # gpt drifts
    "1.2.0": _release(
        "GPT two.", "Claude one.", "Default one.", claude_when=f"{_CLAUDE} or model == 'opus'"
    ),  # anthropic's condition drifts
    "1.3.0": _release("GPT three.", "Claude two.", "Default one.", gemini="Gemini one."),
    "1.4.0": _release("GPT four.", "Claude three.", "Default two.", gemini="Gemini two."),
}
MODELS = ["gpt-5", "claude-opus-4", "gemini-2.5-pro"]
