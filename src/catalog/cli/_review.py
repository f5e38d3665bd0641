"""``catalog review BASE [HEAD]``: the prompt changes between two git revisions."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from catalog.cli._common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    add_counter,
    add_format,
    add_price_options,
    emit_json,
    emit_text,
)
from catalog.cli._report import write_warning
from catalog.errors import ReviewError
from catalog.importers.gitrepo import GitRepo
from catalog.review.bounds import Bound, exceeded, parse_bound
from catalog.review.compare import Review, Settings, review
from catalog.review.github import BOT_LOGIN, DEFAULT_API, post_comment
from catalog.review.markdown import render_markdown
from catalog.review.prices import load_prices
from catalog.review.report import render_json, render_text
from catalog.review.revisions import (
    CommitRevision,
    Revision,
    WorkingTree,
    catalog_roots,
    merge_base,
)
from catalog.text.visible import visible

__all__ = ["register", "run"]

TOKEN_ENV = "GITHUB_TOKEN"
"""Where ``--post-comment`` takes its token from (never from the command line)."""


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``review`` command."""
    parser.description = (
        "For every catalog whose files changed between git revisions BASE and HEAD (the "
        "working tree when left out), and each of its review contexts, show the diff of "
        "the assembled prompt (system text and tools) of every agent, the tokens before "
        "and after, the parts that came in or went out and why, and the cached cost of "
        "a conversation on each model the catalog names. The revisions are read with "
        "dulwich: nothing the repository configures runs. --path names the folders of "
        "catalogs (relative to the current folder, inside the repository); without it, "
        "every folder holding NAME/VERSION/catalog.toml in the revisions' trees. "
        "Exit 0 when nothing changed, 1 when something did, 2 on trouble; with "
        "--fail-on, 1 only when a bound is broken."
    )
    parser.add_argument("base", metavar="BASE", help="a commit id, branch or tag")
    parser.add_argument(
        "head", metavar="HEAD", nargs="?", help="a commit id, branch or tag (default: working tree)"
    )
    parser.add_argument(
        "--repo", metavar="DIR", default=".", help="a folder of the repository (default: .)"
    )
    parser.add_argument(
        "--merge-base",
        action="store_true",
        help="compare from the last commit BASE and HEAD share, as a pull request's diff "
        "does (changes made on BASE since are not shown, reversed, as this change's)",
    )
    parser.add_argument(
        "--fail-on",
        action="append",
        default=[],
        metavar="BOUND",
        help="fail (exit 1) when a prompt grows beyond BOUND: tokens:+500, tokens:+5%%, "
        "cost:+10%%, cost:+0.01 (dollars per conversation); repeatable",
    )
    add_price_options(parser)
    add_counter(parser)
    add_format(parser, "markdown", "json")
    parser.add_argument(
        "--post-comment",
        action="store_true",
        help=f"also create or update the review comment of pull request --github-pr with "
        f"the token in ${TOKEN_ENV}",
    )
    parser.add_argument("--github-repo", metavar="OWNER/NAME", help="the repository on GitHub")
    parser.add_argument("--github-pr", metavar="NUMBER", type=int, help="the pull request")
    parser.add_argument(
        "--github-api",
        metavar="URL",
        default=DEFAULT_API,
        help=f"https:// (http:// only to a loopback address); default {DEFAULT_API}",
    )
    parser.add_argument(
        "--github-author",
        metavar="LOGIN",
        default=BOT_LOGIN,
        help=f"the account the token posts as: only its comment is updated (default {BOT_LOGIN})",
    )
    parser.set_defaults(func=run)


def _top(given: str) -> Path:
    """The repository's top folder: ``given`` or the nearest folder above it with ``.git``."""
    start = Path(given).expanduser().resolve()
    for folder in (start, *start.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    raise ReviewError(
        "not inside a git repository (no .git here or above)",
        file=str(start),
        hint="run it in a clone, or give one with --repo",
    )


def _roots(top: Path, given: list[str], sides: list[Revision]) -> list[str]:
    """The catalog folders, ``/``-separated from the repository's top."""
    if not given:
        return catalog_roots(*sides)
    roots = []
    for path in given:
        full = Path(path).expanduser().resolve()
        if full != top and top not in full.parents:
            raise ReviewError(
                f"--path {path} is not inside the repository {top}",
                hint="give folders of catalogs inside the repository",
            )
        relative = full.relative_to(top).as_posix()
        roots.append("" if relative == "." else relative)
    return roots


def _command(args: argparse.Namespace) -> str:
    words = ["catalog", "review"]
    for path in args.path:
        words += ["--path", path]
    return shlex.join([*words, "--", args.base, *([args.head] if args.head else [])])


def run(args: argparse.Namespace) -> int:
    """Review, print, post the comment when asked; exit by what was found."""
    bounds = [parse_bound(text) for text in args.fail_on]
    prices = load_prices(args.prices)
    top = _top(args.repo)
    with GitRepo(top) as repo:
        start = args.base
        if args.merge_base:
            start = merge_base(repo, args.base, args.head or "HEAD")
        base = CommitRevision(repo, start)
        head: Revision = CommitRevision(repo, args.head) if args.head else WorkingTree(top)
        sides: list[Revision] = [base, head]
        if args.head is None:
            sides.append(CommitRevision(repo, "HEAD"))
        settings = Settings(prices, args.turns, args.ttl, args.counter)
        result = review(base, head, _roots(top, args.path, sides), settings)
    markdown = render_markdown(result, command=_command(args))
    if args.format == "json":
        emit_json(render_json(result))
    elif args.format == "markdown":
        sys.stdout.write(markdown)
    else:
        emit_text(render_text(result))
    if args.post_comment:
        _post(args, markdown)
    return _status(args, result, bounds)


def _post(args: argparse.Namespace, markdown: str) -> None:
    if not args.github_repo or args.github_pr is None:
        raise ReviewError(
            "--post-comment needs --github-repo OWNER/NAME and --github-pr NUMBER",
            hint="in a workflow: --github-repo $GITHUB_REPOSITORY "
            "--github-pr ${{ github.event.pull_request.number }}",
        )
    done, url = post_comment(
        markdown,
        repo=args.github_repo,
        number=args.github_pr,
        token=os.environ.get(TOKEN_ENV, ""),
        api=args.github_api,
        author=args.github_author,
    )
    sys.stderr.write(visible(f"review comment {done}: {url}") + "\n")


def _status(args: argparse.Namespace, result: Review, bounds: list[Bound]) -> int:
    for error in result.errors:
        write_warning(error, as_json=args.format == "json")
    if result.errors:
        return EXIT_USAGE
    if bounds:
        broken = exceeded(result, bounds)
        for sentence in broken:
            write_warning(sentence, as_json=args.format == "json")
        return EXIT_PROBLEMS if broken else EXIT_OK
    return EXIT_PROBLEMS if result.changed else EXIT_OK
