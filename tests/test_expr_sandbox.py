"""Known sandbox escapes (simpleeval, Jinja2 advisories and write-ups) are refused.

Every payload must fail when it is *compiled*, with :class:`ExpressionError`,
before any value is looked at; the same payloads inside template tags fail
with :class:`TemplateError`. Resource exhaustion at evaluation time is bounded.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from catalog.errors import EvaluationError, ExpressionError, TemplateError
from catalog.expr import MAX_TEXT_LENGTH, compile_expression
from catalog.shapes import ANY, SCALAR
from catalog.template import compile_template

# Every name a payload uses is declared (as ANY, the most permissive shape), so
# the refusal comes from the construct itself, not from an unknown name.
NAMES = dict.fromkeys(
    ["x", "y", "self", "cycler", "joiner", "namespace", "lipsum", "config", "request", "range"],
    ANY,
)

PAYLOADS: list[str] = [
    # class hierarchy walks
    "().__class__.__bases__[0].__subclasses__()",
    '"".__class__.__mro__[1].__subclasses__()',
    "[].__class__.__base__.__subclasses__()",
    "x.__class__",
    "x.__dict__",
    "x.__globals__",
    "x.mro()",
    "self.__init__.__globals__",
    "self._TemplateReference__context",
    "cycler.__init__.__globals__.os.popen('id').read()",
    "joiner.__init__.__globals__.os.popen('id').read()",
    "namespace.__init__.__globals__.os.popen('id').read()",
    "lipsum.__globals__['os'].popen('id').read()",
    "lipsum.__globals__.__builtins__.__import__('os')",
    "config.__class__.__init__.__globals__['os']",
    "request.application.__self__._get_data_for_json.__globals__",
    "x['__class__']",
    "x['__globals__']['os']",
    # builtins and imports
    '__import__("os").system("ls")',
    'open("/etc/passwd")',
    'open("/etc/passwd").read()',
    'getattr(x, "__class__")',
    "getattr(x, 'y')",
    "setattr(x, 'y', 1)",
    "type(1)",
    "type(x)('y', (), {})",
    "vars()",
    "globals()",
    "locals()",
    "dir()",
    "compile('1', 'f', 'eval')",
    "breakpoint()",
    "exit()",
    "input()",
    "print(x)",
    "super()",
    "object()",
    "memoryview(b'x')",
    "bytearray(10 ** 9)",
    "range(10 ** 10)",
    "[0] * 10 ** 9",
    # format-string attribute walks
    '"{0.__class__}".format(1)',
    '"{0.__class__.__init__.__globals__}".format(x)',
    "x.format_map(y)",
    "'%s' % x",
    "f'{x.__class__}'",
    "f'{x}'",
    # functions and code execution
    "(lambda: 1)()",
    "lambda: 1",
    "(lambda f: f(f))(lambda f: f(f))",
    "[x for x in range(10)]",
    "[y for y in x]",
    "{y: 1 for y in x}",
    "(y for y in x)",
    "(x := 1)",
    "x.pop()",
    "x.append(1)",
    "x.update(y)",
    "x.clear()",
    "len.__self__",
    "str.__mro__",
    # resource exhaustion
    '"a" * 10**10',
    "2 ** 1000000",
    "10 ** 10 ** 10",
    "x ** x",
    "x << 100000",
    "(" * 200 + "1" + ")" * 200,
    "(" * 40 + "1" + ")" * 40,
    "not " * 500 + "x",
    "not " * 40 + "x",
    "-" * 40 + "1",
    "[" * 100 + "]" * 100,
    "[" * 40 + "]" * 40,
    "x" + ".y" * 40,
    "x" + "[0]" * 40,
    "len(" * 40 + "x" + ")" * 40,
    "+".join(["x"] * 300),
    "[" + ", ".join(["1"] * 300) + "]",
    "x + " * 1300 + "x",
    "'" + "a" * 5000 + "'",
    # syntax games
    "x[1:2]",
    "x[::-1]",
    "x[1:]",
    "*x",
    "x if y",
    "import os",
    "x = 1",
    "x; y",
    "del x",
    "await x",
    "(yield x)",
    "x._y",
    "_",
    "__builtins__",
    "__debug__",
    "{1, 2}",
    "{'a': 1}",
    "x is y",
    "x @ y",
    "~x",
    "b'\\x00'",
    "\x00",
    "x\x00",
]


@pytest.mark.parametrize("payload", PAYLOADS, ids=lambda p: p[:40])
def test_payload_is_refused_at_compile_time(payload: str) -> None:
    with pytest.raises(ExpressionError):
        compile_expression(payload, NAMES)


@pytest.mark.parametrize("payload", PAYLOADS, ids=lambda p: p[:40])
def test_payload_in_a_placeholder_is_refused_at_compile_time(payload: str) -> None:
    with pytest.raises(TemplateError):
        compile_template("Intro\n{{ " + payload + " }}\n", NAMES)


@pytest.mark.parametrize(
    "body",
    [
        "{% if ''.__class__.__mro__ %}x{% endif %}",
        "{% for c in [].__class__.__base__.__subclasses__() %}{{ c }}{% endfor %}",
        "{% for c in x %}{{ c.__init__.__globals__ }}{% endfor %}",
        "{% for _c in x %}{% endfor %}",
        "{% for __class__ in x %}{% endfor %}",
        "{% if x %}{% elif open('/etc/passwd') %}{% endif %}",
        "{{ config.items() }}",
        "{{ request|attr('application') }}",
        "{{ x | safe }}",
        "{{ self._TemplateReference__context.cycler.__init__.__globals__.os }}",
        "{% set x = 1 %}",
        "{% import 'os' as os %}",
        "{% include '/etc/passwd' %}",
        "{% macro m() %}{% endmacro %}",
        "{% raw %}{{ x }}{% endraw %}",
        "{% for i in x %}" * 40 + "{% endfor %}" * 40,
    ],
)
def test_template_payloads_are_refused_at_compile_time(body: str) -> None:
    with pytest.raises(TemplateError):
        compile_template(body, NAMES)


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
    expression = compile_expression(source, NAMES)
    started = time.perf_counter()
    try:
        result = expression(_payload_scope())
    except EvaluationError as exc:
        assert "limit" in exc.message
    else:
        assert len(result) <= MAX_TEXT_LENGTH
    assert time.perf_counter() - started < 2


def test_concatenation_beyond_the_limit_fails() -> None:
    big = "a" * (MAX_TEXT_LENGTH // 2 + 1)
    with pytest.raises(EvaluationError, match="limit"):
        compile_expression("x + x", NAMES)({"x": big})


def test_huge_number_conversion_fails_cleanly() -> None:
    with pytest.raises(EvaluationError, match=r"int\(\)"):
        compile_expression("int(x)", NAMES)({"x": "9" * 5000})


def test_source_never_holds_the_forbidden_tokens() -> None:
    # The repository hook greps for these; the engine must not need them.
    source_dir = Path(__file__).resolve().parents[1] / "src" / "catalog"
    for name in ("expr.py", "template.py", "shapes.py"):
        text = (source_dir / name).read_text(encoding="utf-8")
        assert not re.search(r"\b(eval|exec)\(", text), name
        assert not re.search(r"(?<![.\w])(?<!def )compile\(", text), name


def test_names_are_checked_even_when_the_payload_is_otherwise_harmless() -> None:
    with pytest.raises(ExpressionError, match="unknown name 'os'"):
        compile_expression("os", {"x": SCALAR})
