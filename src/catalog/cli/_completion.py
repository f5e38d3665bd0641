"""``catalog completion bash|zsh|fish``: a shell completion script.

The script is generated from the parser itself, so it offers exactly the
commands and options this version has: the command names first, then the
options of the command typed, and the choices of options that have some
(``--format``, ``--color``). Where a command takes a catalog
(``assemble``, ``show``, ``diff``, ``lock``, ``tokens``...) it offers the
catalogs found and their versions (``NAME`` and ``NAME@VERSION``, the
command line's ``--path`` folders included) and folders; after ``--agent``,
the agents of the catalog the line names. Those are asked of
``catalog __complete catalogs|agents LINE`` (LINE: the command line up to
the cursor), which prints one candidate a line and nothing on any error.
Anything else completes as a file name.

Install: ``source <(catalog completion bash)`` in ``~/.bashrc``; for zsh,
``source <(catalog completion zsh)`` in ``~/.zshrc``; for fish,
``catalog completion fish > ~/.config/fish/completions/catalog.fish``.
"""

from __future__ import annotations

import argparse
import itertools
import shlex
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from catalog.cli._common import ALL_FORMATS, EXIT_OK, add_format, emit_json
from catalog.errors import CatalogError
from catalog.io.catalog_path import CatalogPath

__all__ = ["CATALOG_ARGUMENTS", "complete", "options", "register", "run", "script"]

SHELLS = ("bash", "zsh", "fish")

CATALOG_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "assemble": ("ref",),
    "diff": ("old", "new"),
    "gather": ("ref",),
    "lock": ("ref",),
    "port": ("--to",),
    "serve": ("--template-catalog",),
    "show": ("ref",),
    "tokens": ("ref",),
    "validate": ("targets",),
    "variables": ("ref",),
}
"""The arguments (by ``dest``, or an option by its flag) that name a catalog, per command:
they complete as catalog names and versions."""


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
    from catalog.cli._parser import build_parser  # every command's parser, for their options

    text = script(args.shell, build_parser().get_default("commands"))
    if args.format == "json":
        emit_json({"shell": args.shell, "script": text})
    else:
        sys.stdout.write(text)
    return EXIT_OK


def options(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    """The options ``parser`` shows in its help (what completion offers and a typo is
    matched against)."""
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
        flags = sorted({flag for action in options(parser) for flag in action.option_strings})
        words = [
            str(choice)
            for action in parser._actions
            if not action.option_strings and action.choices
            for choice in action.choices
        ]
        valued = sorted(
            {
                flag
                for action in options(parser)
                if action.nargs != 0
                for flag in action.option_strings
            }
        )
        refs = int(any(not arg.startswith("-") for arg in CATALOG_ARGUMENTS.get(name, ())))
        cases.append(
            f'        {name}) opts="{" ".join(flags)}"; words="{" ".join(words)}"; '
            f'valued=" {" ".join(valued)} "; refs={refs} ;;'
        )
        for action in options(parser):
            if action.choices:
                values = " ".join(str(c) for c in action.choices)
                for flag in action.option_strings:
                    choices.append(f'        {name}:{flag}) values="{values}" ;;')
            elif "--agent" in action.option_strings:
                choices.append(f"        {name}:--agent) asked=agents ;;")
            elif any(flag in CATALOG_ARGUMENTS.get(name, ()) for flag in action.option_strings):
                for flag in action.option_strings:
                    choices.append(f"        {name}:{flag}) asked=catalogs ;;")
    lines = [
        "# catalog completion for " + ("zsh (through bashcompinit)" if zsh else "bash"),
        *(_ZSH_PRELUDE if zsh else []),
        "_catalog_ask() {",
        "    # Candidates from `catalog __complete`, matched against the whole word under the",
        "    # cursor: bash splits NAME@VERSION at the @, so what precedes it is taken off again.",
        '    local line="${COMP_LINE:0:COMP_POINT}"',
        '    [ -n "$line" ] || line="${COMP_WORDS[*]:0:COMP_CWORD+1}"',
        '    local whole="${line##*[[:space:]]}"',
        '    local found="$(catalog __complete "$1" "$line" 2>/dev/null)"',
        '    COMPREPLY=($(compgen -W "$found" -- "$whole"))',
        '    if [[ "$whole" == *@* && "${COMP_WORDBREAKS-}" == *@* ]]; then',
        '        local taken="${whole%@*}@"',
        '        COMPREPLY=("${COMPREPLY[@]#"$taken"}")',
        "    fi",
        "}",
        "_catalog() {",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    local command="" i word opts="" values="" words="" valued="" refs=0 asked=""',
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
        '    if [ -n "$asked" ]; then',
        '        _catalog_ask "$asked"; return',
        "    fi",
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
        '    elif [[ "$refs" == 1 && "$valued" != *" $prev "* ]]; then',
        "        _catalog_ask catalogs",
        '        COMPREPLY+=($(compgen -d -- "$cur"))',
        "    else",
        '        COMPREPLY=($(compgen -f -- "$cur"))',
        "    fi",
        "}",
        "complete -o filenames -F _catalog catalog",
    ]
    return "\n".join(lines) + "\n"


_FISH_ASK = "(catalog __complete {} (commandline -cp) 2>/dev/null)"


def _fish(commands: Mapping[str, argparse.ArgumentParser]) -> str:
    names = " ".join(commands)
    lines = ["# catalog completion for fish", "complete -c catalog -f"]
    for name, parser in commands.items():
        lines.append(
            f"complete -c catalog -n 'not __fish_seen_subcommand_from {names}' "
            f"-a {name} -d '{_help(parser) or name}'"
        )
        refs = CATALOG_ARGUMENTS.get(name, ())
        if any(not arg.startswith("-") for arg in refs):
            lines.append(
                f"complete -c catalog -n '__fish_seen_subcommand_from {name}' "
                f"-a '{_FISH_ASK.format('catalogs')}' -d catalog"
            )
        for action in options(parser):
            longs = [f"-l {flag[2:]}" for flag in action.option_strings if flag.startswith("--")]
            shorts = [
                f"-s {flag[1:]}" for flag in action.option_strings if not flag.startswith("--")
            ]
            takes = action.nargs != 0
            values = f" -x -a '{' '.join(map(str, action.choices))}'" if action.choices else ""
            if "--agent" in action.option_strings:
                values = f" -x -a '{_FISH_ASK.format('agents')}'"
            elif any(flag in refs for flag in action.option_strings):
                values = f" -x -a '{_FISH_ASK.format('catalogs')}'"
            files = " -r -F" if takes and not values else ""
            lines.append(
                f"complete -c catalog -n '__fish_seen_subcommand_from {name}' "
                f"{' '.join(longs + shorts)}{values}{files} -d '{_help(action)}'"
            )
    return "\n".join(lines) + "\n"


def complete(words: Sequence[str]) -> int:
    """``catalog __complete catalogs|agents LINE``: print the candidates, one a line.

    ``catalogs``: every catalog found (``NAME``) and each of its versions
    (``NAME@VERSION``), in the folders the line's ``--path`` options name as well.
    ``agents``: the agents of the catalog the line's command names. Nothing is
    printed for a line that does not say enough, or on any error: a completion
    never speaks.
    """
    if len(words) != 2 or words[0] not in ("catalogs", "agents"):
        return EXIT_OK
    kind, line = words
    try:
        typed = shlex.split(line)
    except ValueError:  # an unclosed quote
        typed = line.split()
    if typed and line and not line[-1].isspace():
        typed = typed[:-1]  # the word being completed
    typed = typed[1:]  # the program's name
    try:
        found = _catalogs(typed) if kind == "catalogs" else _agents(typed)
    except (CatalogError, OSError, ValueError):
        return EXIT_OK
    sys.stdout.write("".join(f"{each}\n" for each in found))
    return EXIT_OK


def _catalog_path(typed: Sequence[str]) -> CatalogPath:
    """The catalog path of the line: its ``--path`` folders that exist, then the usual."""
    paths = [
        value
        for flag, value in itertools.pairwise(typed)
        if flag == "--path" and Path(value).expanduser().is_dir()
    ]
    paths += [word[7:] for word in typed if word.startswith("--path=")]
    return CatalogPath(paths)


def _catalogs(typed: Sequence[str]) -> list[str]:
    catalog_path = _catalog_path(typed)
    found = []
    for name in catalog_path.names():
        found.append(name)
        try:
            found.extend(f"{name}@{ref.version}" for ref in catalog_path.versions(name))
        except CatalogError:  # two folders of one version: the name alone
            continue
    return found


def _agents(typed: Sequence[str]) -> list[str]:
    from catalog.cli._parser import build_parser, command_word
    from catalog.io.catalog_path import is_folder_ref, parse_ref
    from catalog.io.loader import VersionDir, merged_manifest, read_manifest

    if typed and typed[-1].startswith("-"):
        typed = typed[:-1]  # the option whose value is being completed (--agent)
    command = command_word(typed)
    refs = [arg for arg in CATALOG_ARGUMENTS.get(command or "", ()) if not arg.startswith("-")]
    if not refs:
        return []
    try:
        args, _ = build_parser(command).parse_known_args(typed)
    except (CatalogError, SystemExit):
        return []
    given = getattr(args, refs[0], None)
    ref = given[0] if isinstance(given, list) and given else given
    if not isinstance(ref, str):
        return []
    if is_folder_ref(ref):
        folder = Path(ref).expanduser().resolve()
        manifest = merged_manifest(read_manifest(VersionDir(folder.parent, folder.name)))
    else:
        manifest = _catalog_path(typed).find(*parse_ref(ref)).manifest()
    return list(manifest.agent_names)
