"""``catalog completion bash|zsh|fish``: a shell completion script.

The script is generated from the parser itself, so it offers exactly the
commands and options this version has: the command names first, then the
options of the command typed, and the choices of options that have some
(``--format``, ``--color``); anything else completes as a file name.

Install: ``source <(catalog completion bash)`` in ``~/.bashrc``; for zsh,
``source <(catalog completion zsh)`` in ``~/.zshrc``; for fish,
``catalog completion fish > ~/.config/fish/completions/catalog.fish``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Mapping

from catalog.cli._common import ALL_FORMATS, EXIT_OK, add_format, emit_json

__all__ = ["register", "run", "script"]

SHELLS = ("bash", "zsh", "fish")


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``completion`` command."""
    parser.description = (
        "Print a completion script for SHELL. bash: `source <(catalog completion bash)`; "
        "zsh: `source <(catalog completion zsh)`; fish: "
        "`catalog completion fish > ~/.config/fish/completions/catalog.fish`."
    )
    parser.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
    add_format(parser, "json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the script (``--format json``: ``{"shell": ..., "script": ...}``)."""
    text = script(args.shell, args.commands)
    if args.format == "json":
        emit_json({"shell": args.shell, "script": text})
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _options(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        if action.option_strings and action.help != argparse.SUPPRESS:
            yield action


def _help(action: argparse.Action | argparse.ArgumentParser) -> str:
    text = action.description if isinstance(action, argparse.ArgumentParser) else action.help
    return (text or "").split(". ")[0].replace("'", "").replace("\n", " ")


def script(shell: str, commands: Mapping[str, argparse.ArgumentParser]) -> str:
    """The completion script for ``shell`` offering ``commands`` (name -> its parser)."""
    if shell == "fish":
        return _fish(commands)
    return _bash(commands, zsh=shell == "zsh")


_ZSH_PRELUDE = [
    "(( $+functions[compdef] )) || { autoload -U +X compinit && compinit -u; }",
    "autoload -U +X bashcompinit && bashcompinit",
]


def _bash(commands: Mapping[str, argparse.ArgumentParser], *, zsh: bool) -> str:
    cases = []
    choices = []
    for name, parser in commands.items():
        flags = sorted({flag for action in _options(parser) for flag in action.option_strings})
        words = [
            str(choice)
            for action in parser._actions
            if not action.option_strings and action.choices
            for choice in action.choices
        ]
        cases.append(f'        {name}) opts="{" ".join(flags)}"; words="{" ".join(words)}" ;;')
        for action in _options(parser):
            if action.choices:
                values = " ".join(str(c) for c in action.choices)
                for flag in action.option_strings:
                    choices.append(f'        {name}:{flag}) values="{values}" ;;')
    lines = [
        "# catalog completion for " + ("zsh (through bashcompinit)" if zsh else "bash"),
        *(_ZSH_PRELUDE if zsh else []),
        "_catalog() {",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    local command="" i word opts="" values="" words=""',
        '    local globals="--path --format --color --help --version"',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        word="${COMP_WORDS[i]}"',
        '        case "$word" in',
        "            --path|--format|--color) ((i++)) ;;",
        "            -*) ;;",
        '            *) command="$word"; break ;;',
        "        esac",
        "    done",
        '    case "$command:$prev" in',
        *choices,
        f'        :--format) values="{" ".join(ALL_FORMATS)}" ;;',
        '        :--color) values="auto always never" ;;',
        "    esac",
        '    if [ -n "$values" ]; then',
        '        COMPREPLY=($(compgen -W "$values" -- "$cur")); return',
        "    fi",
        '    if [ -z "$command" ]; then',
        '        if [[ "$cur" == -* ]]; then',
        '            COMPREPLY=($(compgen -W "$globals" -- "$cur"))',
        "        else",
        f'            COMPREPLY=($(compgen -W "{" ".join(commands)}" -- "$cur"))',
        "        fi",
        "        return",
        "    fi",
        '    case "$command" in',
        *cases,
        "    esac",
        '    if [[ "$cur" == -* ]]; then',
        '        COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
        '    elif [ -n "$words" ]; then',
        '        COMPREPLY=($(compgen -W "$words" -- "$cur"))',
        "    else",
        '        COMPREPLY=($(compgen -f -- "$cur"))',
        "    fi",
        "}",
        "complete -o filenames -F _catalog catalog",
    ]
    return "\n".join(lines) + "\n"


def _fish(commands: Mapping[str, argparse.ArgumentParser]) -> str:
    names = " ".join(commands)
    lines = ["# catalog completion for fish", "complete -c catalog -f"]
    for name, parser in commands.items():
        lines.append(
            f"complete -c catalog -n 'not __fish_seen_subcommand_from {names}' "
            f"-a {name} -d '{_help(parser) or name}'"
        )
        for action in _options(parser):
            longs = [f"-l {flag[2:]}" for flag in action.option_strings if flag.startswith("--")]
            shorts = [
                f"-s {flag[1:]}" for flag in action.option_strings if not flag.startswith("--")
            ]
            takes = action.nargs != 0
            values = f" -x -a '{' '.join(map(str, action.choices))}'" if action.choices else ""
            files = " -r -F" if takes and not action.choices else ""
            lines.append(
                f"complete -c catalog -n '__fish_seen_subcommand_from {name}' "
                f"{' '.join(longs + shorts)}{values}{files} -d '{_help(action)}'"
            )
    return "\n".join(lines) + "\n"
