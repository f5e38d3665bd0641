"""An expression's source text: parsing it within the limits, and placing its nodes.

:func:`parse` turns a source into a checked :mod:`ast` tree (size, node count
and bracket depth within the limits of :mod:`catalog.lang.values`, every
failure an :class:`ExpressionError` with its column); :class:`Source` turns
the positions of the tree's nodes into the 1-based character columns errors
report. The compiler (:mod:`catalog.lang.compiler`) builds on both.
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings
from typing import Final, NoReturn

from catalog.cache import BoundedCache
from catalog.errors import ExpressionError
from catalog.lang.values import MAX_DEPTH, MAX_NODES, MAX_SOURCE_LENGTH

__all__ = ["Source", "parse"]

_NEWLINE: Final = re.compile(r"\r\n|\r|\n")
_ASSIGNMENT: Final = re.compile(r"(?<![=!<>])=(?!=)")  # one '=', not part of ==, !=, <=, >=
_C_OPERATORS: Final = (
    ("&&", "and", re.compile(r"&&")),
    ("||", "or", re.compile(r"\|\|")),
    ("!", "not", re.compile(r"!(?!=)")),  # not the '!' of '!='
)
"""The operators of C-like languages a condition may be written with, and their words here."""
_SYNTAX_HINT: Final = (
    "check the brackets and quotes are closed and each operator has its operands; "
    "`catalog help expressions` gives the grammar"
)
_BRACKET: Final = re.compile(r"[()\[\]#]")


class Source:
    """The stripped text of an expression and where it starts in what the caller wrote
    (``base`` characters in): columns of nodes and of operators between them."""

    def __init__(self, text: str, base: int) -> None:
        self.text = text
        self.base = base
        self._starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        # Columns count characters, the tree counts UTF-8 bytes: the same in ASCII.
        self._ascii = text.isascii()

    def offset(self, lineno: int, col: int) -> int:
        """Character offset in the text of an AST (line, UTF-8 byte column) position."""
        start = self._starts[lineno - 1]
        end = self._starts[lineno] if lineno < len(self._starts) else len(self.text)
        if self._ascii:
            return start + min(col, end - start)
        prefix = self.text[start:end].encode("utf-8")[:col]
        return start + len(prefix.decode("utf-8", "ignore"))

    def column(self, node: ast.AST) -> int:
        """1-based column of ``node`` in the caller's source."""
        lineno: int = getattr(node, "lineno", 1)
        col: int = getattr(node, "col_offset", 0)
        return self.base + self.offset(lineno, col) + 1

    def end(self, node: ast.expr) -> int:
        """Character offset just after ``node`` in the text."""
        return self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)

    def where(self, node: ast.expr) -> str:
        """The source text of ``node``, whitespace collapsed, for messages."""
        start = self.offset(node.lineno, node.col_offset)
        return " ".join(self.text[start : self.end(node)].split())

    def between(self, left: ast.expr, right: ast.expr, symbol: str) -> int:
        """Column of ``symbol`` written between two operands (the operator's position)."""
        start, stop = self.end(left), self.offset(right.lineno, right.col_offset)
        found = self.text.find(symbol, start, stop)
        return self.base + (found if found >= 0 else start) + 1

    def check_brackets(self, tree: ast.Expression) -> None:
        """Refuse brackets nested deeper than :data:`MAX_DEPTH`.

        Parentheses leave no node in the tree, so ``((((1))))`` is measured
        on the text, skipping string literals and comments.
        """
        strings: list[tuple[int, int]] = []
        for span in sorted(
            (self.offset(node.lineno, node.col_offset), self.end(node))
            for node in ast.walk(tree)
            if isinstance(node, ast.JoinedStr)
            or (isinstance(node, ast.Constant) and isinstance(node.value, str | bytes))
        ):
            if not strings or span[0] >= strings[-1][1]:  # drop spans inside an f-string
                strings.append(span)
        starts = [start for start, _ in strings]
        depth, skip_to = 0, 0
        for found in _BRACKET.finditer(self.text):
            at = found.start()
            inside = bisect.bisect_right(starts, at) - 1
            if at < skip_to or (inside >= 0 and at < strings[inside][1]):
                continue
            char = found.group()
            if char == "#":
                newline = self.text.find("\n", at)
                skip_to = len(self.text) if newline < 0 else newline
            elif char in "([":
                depth += 1
                if depth > MAX_DEPTH:
                    _fail(f"brackets are nested more than {MAX_DEPTH} levels deep", self.base + at)
            else:
                depth -= 1


_TREES: Final[BoundedCache[str, tuple[Source, ast.Expression]]] = BoundedCache(512)


def parse(source: str) -> tuple[Source, ast.Expression]:
    """The checked tree of ``source`` and its :class:`Source`; raises
    :class:`ExpressionError` (with ``column``) for anything too long, too big,
    nested too deep or malformed. No other exception escapes for any text.

    The last 512 texts parsed are remembered (their trees are only read): the
    plans of a catalog's agents compile the same conditions again.
    """
    found = _TREES.get(source)
    if found is None:
        found = _parse_checked(source)
        _TREES.put(source, found)
    return found


def _parse_checked(source: str) -> tuple[Source, ast.Expression]:
    """:func:`parse` for a text not parsed lately."""
    text = source.strip()
    base = len(source) - len(source.lstrip())
    if not text:
        raise ExpressionError("empty expression", column=1)
    if len(text) > MAX_SOURCE_LENGTH:
        _fail(
            f"expression is {len(text)} characters long, "
            f"more than the limit of {MAX_SOURCE_LENGTH}",
            base,
        )
    tree = _parse(text, base)
    # Every expression node owns at least one character of the text (a name, a
    # literal, an operator, a bracket or a comma), so a short text needs no count.
    count = _count_expressions(tree) if len(text) > MAX_NODES else 0
    if count > MAX_NODES:
        raise ExpressionError(
            f"expression has {count} parts, more than the limit of {MAX_NODES}",
            column=base + 1,
            hint="split it, or move the logic into the context",
        )
    found = Source(text, base)
    if text.count("(") + text.count("[") > MAX_DEPTH:  # else they cannot nest too deep
        found.check_brackets(tree)
    return found, tree


def _fail(message: str, offset: int) -> NoReturn:
    raise ExpressionError(message, column=offset + 1)


def _count_expressions(tree: ast.AST) -> int:
    """How many expression nodes ``tree`` holds (one walk, no generator per node)."""
    count = 0
    pending = [tree]
    while pending:
        node = pending.pop()
        count += isinstance(node, ast.expr)
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                pending.append(value)
            elif isinstance(value, list):
                pending.extend(item for item in value if isinstance(item, ast.AST))
    return count


def _parse(text: str, base: int) -> ast.Expression:
    """``ast.parse`` in eval mode, every failure turned into :class:`ExpressionError`.

    Warnings raised while parsing (an invalid escape such as ``"\\d"``) are
    errors too: a condition should not be accepted with a complaint on stderr.
    """
    try:
        with warnings.catch_warnings():
            # Invalid escapes and the like become syntax errors, not stderr noise.
            warnings.simplefilter("error")
            return ast.parse(text, mode="eval")
    except SyntaxError as exc:
        column = _syntax_column(text, exc)
        hint = _SYNTAX_HINT
        written = [
            f"'{word}' instead of '{op}'" for op, word, at in _C_OPERATORS if at.search(text)
        ]
        if written:
            hint = f"write {', '.join(written)}"
        elif _NEWLINE.search(text) and _parses(_NEWLINE.sub(" ", text)):
            hint = "wrap an expression written on several lines in parentheses"
        elif _ASSIGNMENT.search(text):
            hint = "compare with '==' ('=' assigns, which an expression cannot)"
        message = exc.msg or "invalid syntax"
        raise ExpressionError(f"syntax error: {message}", column=base + column, hint=hint) from None
    except (ValueError, RecursionError, MemoryError, Warning) as exc:
        raise ExpressionError(f"cannot parse the expression: {exc}", column=base + 1) from None


def _parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _syntax_column(text: str, exc: SyntaxError) -> int:
    """The 1-based character column of a :class:`SyntaxError`, counted from the source start."""
    if not exc.lineno:
        return 1
    if not exc.offset:  # the source ended too early
        return len(text) + 1
    starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
    line = min(exc.lineno, len(starts)) - 1
    return min(starts[line] + exc.offset - 1, len(text)) + 1
