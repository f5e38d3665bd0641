"""Known sandbox escapes (simpleeval, Jinja2 advisories and write-ups) are refused.

Every payload must fail when it is *compiled*, with :class:`ExpressionError`,
before any value is looked at; the same payloads inside template tags fail
with :class:`TemplateError`. Resource exhaustion at evaluation time is bounded.
"""

from __future__ import annotations

import re
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from catalog import load_dir
from catalog.errors import EvaluationError, ExpressionError, TemplateError
from catalog.lang.compiler import compile_expression
from catalog.lang.shapes import ANY, SCALAR
from catalog.lang.template import compile_template
from catalog.lang.values import MAX_TEXT_LENGTH

# Every name a payload uses is declared (as ANY, the most permissive shape), so
# the refusal comes from the construct itself, not from an unknown name.
DECLARED = ["x", "y", "self", "range"]
DECLARED += ["cycler", "joiner", "namespace", "lipsum", "config", "request"]  # Jinja2 globals
NAMES = dict.fromkeys(DECLARED, ANY)

# Which defence refuses a payload: a pattern of the error message. Each payload
# names the defence that stops it, so removing that defence fails its rows.
UNDERSCORE = "starting with '_' are not allowed"
METHOD_CALL = "calling methods is not allowed"
NOT_A_FUNCTION = "unknown function"
CALL_OF_RESULT = "calling the result of an expression is not allowed"
OPERATOR = "operator '[^']+' is not allowed"
LAMBDA = "lambda is not allowed"
COMPREHENSION = "(comprehension|generator expression) is not allowed"
F_STRING = "an f-string is not allowed"
ASSIGNMENT = r"assignment \(:=\) is not allowed"
SLICE = "a slice is not allowed"
LITERAL = "a (set|dict|bytes) literal is not allowed"
AWAIT_YIELD = "(await|yield) is not allowed"
IS_NOT_NONE = "'is' is only allowed with none"
TOO_DEEP = "nested more than 32 levels deep"
TOO_LONG = "characters long, more than the limit of 1000"
TOO_MANY_NODES = "parts, more than the limit of 256"
SYNTAX = "syntax error"

PAYLOADS: list[tuple[str, str]] = [
    # class hierarchy walks
    ("().__class__.__bases__[0].__subclasses__()", METHOD_CALL),
    ('"".__class__.__mro__[1].__subclasses__()', METHOD_CALL),
    ("[].__class__.__base__.__subclasses__()", METHOD_CALL),
    ("x.__class__", UNDERSCORE),
    ("x.__dict__", UNDERSCORE),
    ("x.__globals__", UNDERSCORE),
    ("x.mro()", METHOD_CALL),
    ("self.__init__.__globals__", UNDERSCORE),
    ("self._TemplateReference__context", UNDERSCORE),
    ("cycler.__init__.__globals__.os.popen('id').read()", METHOD_CALL),
    ("joiner.__init__.__globals__.os.popen('id').read()", METHOD_CALL),
    ("namespace.__init__.__globals__.os.popen('id').read()", METHOD_CALL),
    ("lipsum.__globals__['os'].popen('id').read()", METHOD_CALL),
    ("lipsum.__globals__.__builtins__.__import__('os')", METHOD_CALL),
    ("config.__class__.__init__.__globals__['os']", UNDERSCORE),
    ("request.application.__self__._get_data_for_json.__globals__", UNDERSCORE),
    ("x['__class__']", UNDERSCORE),
    ("x['__globals__']['os']", UNDERSCORE),
    # ... and the same walks without their final call, so the '_' rule alone stops them
    ("().__class__.__bases__[0]", UNDERSCORE),
    ('"".__class__.__mro__[1]', UNDERSCORE),
    ("cycler.__init__.__globals__.os", UNDERSCORE),
    ("lipsum.__globals__['os']", UNDERSCORE),
    ('__import__("os")', UNDERSCORE),
    # builtins and imports
    ('__import__("os").system("ls")', METHOD_CALL),
    ('open("/etc/passwd")', NOT_A_FUNCTION),
    ('open("/etc/passwd").read()', METHOD_CALL),
    ('getattr(x, "__class__")', NOT_A_FUNCTION),
    ("getattr(x, 'y')", NOT_A_FUNCTION),
    ("setattr(x, 'y', 1)", NOT_A_FUNCTION),
    ("type(1)", NOT_A_FUNCTION),
    ("type(x)('y', (), {})", CALL_OF_RESULT),
    ("vars()", NOT_A_FUNCTION),
    ("globals()", NOT_A_FUNCTION),
    ("locals()", NOT_A_FUNCTION),
    ("dir()", NOT_A_FUNCTION),
    ("compile('1', 'f', 'eval')", NOT_A_FUNCTION),
    ("breakpoint()", NOT_A_FUNCTION),
    ("exit()", NOT_A_FUNCTION),
    ("input()", NOT_A_FUNCTION),
    ("print(x)", NOT_A_FUNCTION),
    ("super()", NOT_A_FUNCTION),
    ("object()", NOT_A_FUNCTION),
    ("memoryview(b'x')", NOT_A_FUNCTION),
    ("bytearray(10 ** 9)", NOT_A_FUNCTION),
    ("range(10 ** 10)", NOT_A_FUNCTION),
    ("[0] * 10 ** 9", OPERATOR),
    # format-string attribute walks
    ('"{0.__class__}".format(1)', METHOD_CALL),
    ('"{0.__class__.__init__.__globals__}".format(x)', METHOD_CALL),
    ("x.format_map(y)", METHOD_CALL),
    ("'%s' % x", OPERATOR),
    ("f'{x.__class__}'", F_STRING),
    ("f'{x}'", F_STRING),
    # functions and code execution
    ("(lambda: 1)()", CALL_OF_RESULT),
    ("lambda: 1", LAMBDA),
    ("(lambda f: f(f))(lambda f: f(f))", CALL_OF_RESULT),
    ("[x for x in range(10)]", COMPREHENSION),
    ("[y for y in x]", COMPREHENSION),
    ("{y: 1 for y in x}", COMPREHENSION),
    ("(y for y in x)", COMPREHENSION),
    ("(x := 1)", ASSIGNMENT),
    ("x.pop()", METHOD_CALL),
    ("x.append(1)", METHOD_CALL),
    ("x.update(y)", METHOD_CALL),
    ("x.clear()", METHOD_CALL),
    ("len.__self__", UNDERSCORE),
    ("str.__mro__", UNDERSCORE),
    # resource exhaustion
    ('"a" * 10**10', OPERATOR),
    ("2 ** 1000000", OPERATOR),
    ("10 ** 10 ** 10", OPERATOR),
    ("x ** x", OPERATOR),
    ("x << 100000", OPERATOR),
    ("(" * 200 + "1" + ")" * 200, TOO_DEEP),
    ("(" * 40 + "1" + ")" * 40, TOO_DEEP),
    ("not " * 500 + "x", TOO_LONG),
    ("not " * 40 + "x", TOO_DEEP),
    ("-" * 40 + "1", TOO_DEEP),
    ("[" * 100 + "]" * 100, TOO_DEEP),
    ("[" * 40 + "]" * 40, TOO_DEEP),
    ("x" + ".y" * 40, TOO_DEEP),
    ("x" + "[0]" * 40, TOO_DEEP),
    ("len(" * 40 + "x" + ")" * 40, TOO_DEEP),
    ("+".join(["x"] * 300), TOO_MANY_NODES),
    ("[" + ", ".join(["1"] * 300) + "]", TOO_MANY_NODES),
    ("x + " * 1300 + "x", TOO_LONG),
    ("'" + "a" * 5000 + "'", TOO_LONG),
    # syntax games
    ("x[1:2]", SLICE),
    ("x[::-1]", SLICE),
    ("x[1:]", SLICE),
    ("*x", SYNTAX),
    ("x if y", SYNTAX),
    ("import os", SYNTAX),
    ("x = 1", SYNTAX),
    ("x; y", SYNTAX),
    ("del x", SYNTAX),
    ("await x", AWAIT_YIELD),
    ("(yield x)", AWAIT_YIELD),
    ("x._y", UNDERSCORE),
    ("_", UNDERSCORE),
    ("__builtins__", UNDERSCORE),
    ("__debug__", UNDERSCORE),
    ("{1, 2}", LITERAL),
    ("{'a': 1}", LITERAL),
    ("x is y", IS_NOT_NONE),
    ("x @ y", OPERATOR),
    ("~x", OPERATOR),
    ("b'\\x00'", LITERAL),
    ("\x00", SYNTAX),
    ("x\x00", SYNTAX),
]


def _ids(row: tuple[str, str]) -> str:
    return row[0][:40]


@pytest.mark.parametrize(("payload", "reason"), PAYLOADS, ids=list(map(_ids, PAYLOADS)))
def test_payload_is_refused_at_compile_time(payload: str, reason: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expression(payload, NAMES)
    assert re.search(reason, caught.value.message), caught.value.message


@pytest.mark.parametrize(("payload", "reason"), PAYLOADS, ids=list(map(_ids, PAYLOADS)))
def test_payload_in_a_placeholder_is_refused_at_compile_time(payload: str, reason: str) -> None:
    with pytest.raises(TemplateError) as caught:
        compile_template("Intro\n{{ " + payload + " }}\n", NAMES)
    assert re.search(reason, caught.value.message), caught.value.message
    assert caught.value.line == 2


@pytest.mark.parametrize(("payload", "reason"), PAYLOADS, ids=list(map(_ids, PAYLOADS)))
def test_payload_as_a_condition_stops_the_catalog_loading(
    make_catalog: Callable[..., Path], payload: str, reason: str
) -> None:
    folder = make_catalog(
        parts=[{"id": "ok", "body": "Fine."}, {"id": "evil", "when": payload, "body": "Evil."}],
        variables=[{"name": name, "type": "map"} for name in DECLARED],
    )
    with pytest.raises(ExpressionError) as caught:
        load_dir(folder)
    assert re.search(reason, caught.value.message), caught.value.message
    assert caught.value.key == "part[1].when"
    assert caught.value.file == str(folder / "catalog.toml")


LOOP_NAME = "cannot be a loop variable name"
UNKNOWN_TAG = "unknown tag '(set|import|include|macro|raw)'"
BLOCKS_TOO_DEEP = "blocks are nested more than 32 deep"

TEMPLATE_PAYLOADS: list[tuple[str, str]] = [
    ("{% if ''.__class__.__mro__ %}x{% endif %}", UNDERSCORE),
    ("{% for c in [].__class__.__base__.__subclasses__() %}{{ c }}{% endfor %}", METHOD_CALL),
    ("{% for c in x %}{{ c.__init__.__globals__ }}{% endfor %}", UNDERSCORE),
    ("{% for _c in x %}{% endfor %}", LOOP_NAME),
    ("{% for __class__ in x %}{% endfor %}", LOOP_NAME),
    ("{% if x %}{% elif open('/etc/passwd') %}{% endif %}", NOT_A_FUNCTION),
    ("{{ config.items() }}", METHOD_CALL),
    ("{{ request|attr('application') }}", OPERATOR),
    ("{{ x | safe }}", OPERATOR),
    ("{{ self._TemplateReference__context.cycler.__init__.__globals__.os }}", UNDERSCORE),
    ("{% set x = 1 %}", UNKNOWN_TAG),
    ("{% import 'os' as os %}", UNKNOWN_TAG),
    ("{% include '/etc/passwd' %}", UNKNOWN_TAG),
    ("{% macro m() %}{% endmacro %}", UNKNOWN_TAG),
    ("{% raw %}{{ x }}{% endraw %}", UNKNOWN_TAG),
    ("{% for i in x %}" * 40 + "{% endfor %}" * 40, BLOCKS_TOO_DEEP),
]


@pytest.mark.parametrize(("body", "reason"), TEMPLATE_PAYLOADS)
def test_template_payloads_are_refused_at_compile_time(body: str, reason: str) -> None:
    """Each is refused by the defence named beside it (a pattern of its message)."""
    with pytest.raises(TemplateError) as caught:
        compile_template(body, NAMES)
    assert re.search(reason, caught.value.message), caught.value.message


class Secretive(BaseModel):
    name: str = "public"
    _secret: str = "hidden"

    def leak(self) -> str:
        return "leaked"


@pytest.mark.parametrize(
    "source",
    ["x.leak", "x.model_dump", "x.model_fields", "x.copy", "x.secret", "x.schema", "y.count"],
)
def test_runtime_attribute_access_never_reaches_python_attributes(source: str) -> None:
    # ANY-shaped names pass the compile check; the value rule still refuses.
    value = compile_expression(source, NAMES)({"x": Secretive(), "y": [1]})
    assert value is None


def test_mapping_keys_are_data_not_attributes() -> None:
    scope: dict[str, Any] = {"x": {"items": "a key", "keys": "another"}}
    assert compile_expression("x.items", NAMES)(scope) == "a key"
    assert compile_expression("x.keys", NAMES)(scope) == "another"


def _payload_scope() -> dict[str, Any]:
    return {"x": "a" * 100_000, "y": ["b" * 1000] * 1000}


@pytest.mark.parametrize(
    "source",
    [
        "replace(x, '', x)",
        "join(y, x)",
        "indent(x + '\\n' + x, 1000000000)",
        "replace(replace(x, 'a', x), 'a', x)",
        "join(y + y + y + y + y + y + y + y + y + y + y, x)",
    ],
)
def test_growth_is_bounded_at_evaluation(source: str) -> None:
    """Each of these would build gigabytes; the size of a result is checked before it is
    built, so no more memory is taken than one text at the limit."""
    expression = compile_expression(source, NAMES)
    scope = _payload_scope()
    tracemalloc.start()
    try:
        try:
            result = expression(scope)
        except EvaluationError as exc:
            assert "limit" in exc.message
        else:
            assert len(result) <= MAX_TEXT_LENGTH
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= MAX_TEXT_LENGTH, peak  # bytes: one text at the limit at most


def test_concatenation_beyond_the_limit_fails() -> None:
    big = "a" * (MAX_TEXT_LENGTH // 2 + 1)
    with pytest.raises(EvaluationError, match="limit"):
        compile_expression("x + x", NAMES)({"x": big})


def test_huge_number_conversion_fails_cleanly() -> None:
    with pytest.raises(EvaluationError, match=r"int\(\)"):
        compile_expression("int(x)", NAMES)({"x": "9" * 5000})


def test_source_never_holds_the_forbidden_tokens() -> None:
    # The repository hook greps for these; the engine must not need them.
    source_dir = Path(__file__).resolve().parents[2] / "src" / "catalog" / "lang"
    modules = sorted(source_dir.glob("*.py"))
    assert {"compiler.py", "template.py", "shapes.py"} <= {m.name for m in modules}
    for module in modules:
        name = module.name
        text = module.read_text(encoding="utf-8")
        assert not re.search(r"\b(eval|exec)\(", text), name
        assert not re.search(r"(?<![.\w])(?<!def )compile\(", text), name


def test_names_are_checked_even_when_the_payload_is_otherwise_harmless() -> None:
    with pytest.raises(ExpressionError, match="unknown name 'os'"):
        compile_expression("os", {"x": SCALAR})
