"""`catalog serve` in process: dispatch's routes, conversations, the JSON API, the pages,
limits, the token and every error as a 4xx with a message."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")

from fastapi.testclient import TestClient

from catalog.server.app import create_app
from catalog.server.state import ServerSettings
from tests._support.serving import write_demo_catalogs
from tests.conftest import run_cli, write_catalog

BASE = "http://127.0.0.1"


@pytest.fixture
def catalogs(tmp_path: Path) -> Path:
    return write_demo_catalogs(tmp_path / "catalogs")


def _client(settings: ServerSettings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), base_url=BASE) as client:
        yield client


@pytest.fixture
def client(catalogs: Path, tmp_path: Path) -> Iterator[TestClient]:
    settings = ServerSettings(
        paths=(str(catalogs),),
        store_url=f"sqlite:///{tmp_path / 'prompts.sqlite'}",
        template_catalog="tpl",
    )
    yield from _client(settings)


def _error(response: Any, status: int) -> str:
    """The message of an error answer, checked to have the one error shape."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"status", "message", "field", "hint"}
    assert error["status"] == status
    message: str = error["message"]
    assert message
    return message


# -- dispatch's three routes


def test_system_prompt_routes(client: TestClient) -> None:
    assert client.get("/system-prompt").json() == {"template": "Default in [p:cwd]."}
    saved = client.put("/system-prompt", json={"template": "Saved in [p:cwd]."})
    assert saved.status_code == 200
    assert saved.json() == {"template": "Saved in [p:cwd]."}
    assert client.get("/system-prompt").json() == {"template": "Saved in [p:cwd]."}
    assert client.get("/system-prompt/variables").json() == {
        "variables": [
            {"type": "p", "name": "cwd", "description": "the working directory", "dynamic": False},
            {"type": "file", "name": "", "description": "a file's text", "dynamic": True},
        ]
    }


def test_the_default_template_catalog_is_one_that_takes_a_template(tmp_path: Path) -> None:
    """With only the bundled catalogs, the routes edit the one that takes a user template;
    its default is read here from the manifest itself."""
    bundled = resources.files("catalog").joinpath("parts")
    expected = []
    for folder in sorted(bundled.iterdir(), key=lambda f: f.name):
        for version in folder.iterdir() if folder.is_dir() else ():
            if not version.joinpath("catalog.toml").is_file():
                continue
            manifest = tomllib.loads(version.joinpath("catalog.toml").read_text("utf-8"))
            variables = {v["name"]: v for v in manifest.get("variable", [])}
            if manifest.get("binding") and variables.get("template", {}).get("type") == "str":
                expected.append(variables["template"]["default"])
    assert expected, "a bundled catalog takes a user template"
    settings = ServerSettings(store_url=f"sqlite:///{tmp_path / 'p.sqlite'}")
    for client in _client(settings):
        assert client.get("/system-prompt").json() == {"template": expected[0]}
        variables = client.get("/system-prompt/variables").json()["variables"]
        assert {"type": "file", "dynamic": True} in [
            {"type": v["type"], "dynamic": v["dynamic"]} for v in variables
        ]


def test_an_unavailable_store_serves_the_default_and_refuses_writes(
    catalogs: Path, tmp_path: Path
) -> None:
    pytest.importorskip("psycopg")
    settings = ServerSettings(
        paths=(str(catalogs),),
        store_url=f"postgresql://nobody@/db?host={tmp_path}&connect_timeout=1",
        template_catalog="tpl",
        store_timeout=0.2,
    )
    for client in _client(settings):
        assert client.get("/system-prompt").json() == {"template": "Default in [p:cwd]."}
        assert "busy or unreachable" in _error(
            client.put("/system-prompt", json={"template": "x"}), 503
        )
        assert client.get("/system-prompt/variables").status_code == 200
        _error(client.put("/conversations/c", json={"catalog": "demo"}), 503)


# -- conversations


def test_construct_once_get_and_rebuild(client: TestClient) -> None:
    first = client.put(
        "/conversations/c1", json={"catalog": "tpl", "context": {"env": {"cwd": "/a"}}}
    )
    assert first.status_code == 200
    body = first.json()
    assert (body["text"], body["revision"], body["catalog"], body["version"]) == (
        "Default in /a.", 0, "tpl", "1.0.0"
    )  # fmt: skip
    assert len(body["fingerprint"]) == 64
    again = client.put(
        "/conversations/c1", json={"catalog": "tpl", "context": {"env": {"cwd": "/b"}}}
    )
    assert again.json() == body  # the first writer wins
    assert client.get("/conversations/c1").json() == body
    rebuilt = client.post(
        "/conversations/c1/rebuild", json={"context": {"env": {"cwd": "/b"}}, "append": "Compact."}
    ).json()
    assert (rebuilt["text"], rebuilt["revision"]) == ("Default in /b.\n\nCompact.", 1)
    stored = client.get("/conversations/c1").json()
    assert (stored["text"], stored["revision"]) == ("Default in /b.", 1)  # without the append
    assert stored["fingerprint"] == rebuilt["fingerprint"]
    assert "no prompt" in _error(client.get("/conversations/nobody"), 404)
    assert "no prompt to rebuild" in _error(
        client.post("/conversations/nobody/rebuild", json={}), 404
    )


def test_a_changed_template_affects_only_later_conversations(client: TestClient) -> None:
    context = {"env": {"cwd": "/w"}}
    old = client.put("/conversations/old", json={"catalog": "tpl", "context": context}).json()
    client.put("/system-prompt", json={"template": "Edited for [p:cwd]."})
    assert (
        client.put("/conversations/old", json={"catalog": "tpl", "context": context}).json() == old
    )
    new = client.put("/conversations/new", json={"catalog": "tpl", "context": context}).json()
    assert (old["text"], new["text"]) == ("Default in /w.", "Edited for /w.")


def test_a_conversation_belongs_to_its_catalog_and_agent(client: TestClient) -> None:
    client.put("/conversations/c", json={"catalog": "tpl"})
    assert "was constructed for catalog tpl" in _error(
        client.put("/conversations/c", json={"catalog": "demo"}), 409
    )
    _error(client.put("/conversations/c", json={"catalog": "tpl", "agent": "helper"}), 409)
    assert "no agent 'nobody'" in _error(
        client.put("/conversations/d", json={"catalog": "tpl", "agent": "nobody"}), 404
    )


# -- the token


def test_writes_need_the_token_off_loopback(catalogs: Path, tmp_path: Path) -> None:
    settings = ServerSettings(
        paths=(str(catalogs),),
        store_url=f"sqlite:///{tmp_path / 'p.sqlite'}",
        template_catalog="tpl",
        token="s3cret-4e1f0a9b7c2d58e6a1b3f09c-7d1e",
        host="0.0.0.0",
    )
    for client in _client(settings):
        body = {"template": "T"}
        assert "Bearer" in _error(client.put("/system-prompt", json=body), 401)
        wrong = {"Authorization": "Bearer nope"}
        _error(client.put("/system-prompt", json=body, headers=wrong), 401)
        _error(client.put("/conversations/c", json={"catalog": "tpl"}), 401)
        _error(client.post("/conversations/c/rebuild", json={}), 401)
        right = {"Authorization": "Bearer s3cret-4e1f0a9b7c2d58e6a1b3f09c-7d1e"}
        assert client.put("/system-prompt", json=body, headers=right).status_code == 200
        assert client.get("/system-prompt").json() == body  # reads need no token
        made = client.put("/conversations/c", json={"catalog": "tpl"}, headers=right)
        assert made.status_code == 200
        assert client.post("/api/assemble", json={"catalog": "demo"}).status_code == 200


def test_writes_from_another_sites_pages_are_refused(client: TestClient) -> None:
    evil = {"Origin": "http://attacker.example"}
    assert "refused" in _error(
        client.put("/system-prompt", json={"template": "x"}, headers=evil), 403
    )
    _error(client.post("/conversations/c/rebuild", json={"catalog": "tpl"}, headers=evil), 403)
    same = {"Origin": BASE}
    assert client.put("/system-prompt", json={"template": "x"}, headers=same).status_code == 200
    assert client.post("/api/assemble", json={"catalog": "demo"}, headers=evil).status_code == 200


def test_a_loopback_server_answers_only_loopback_host_names(client: TestClient) -> None:
    assert client.get("/", headers={"host": "attacker.example"}).status_code == 400
    assert client.get("/", headers={"host": "localhost:8000"}).status_code == 200


# -- bad input: 4xx with a message, never 500


@pytest.mark.parametrize(
    ("path", "content", "status", "words"),
    [
        ("/api/assemble", b"{not json", 422, "JSON decode error"),
        ("/api/assemble", b"{}", 422, "body.catalog: missing required key 'catalog'"),
        ("/api/assemble", b'{"catalog": "demo", "context": []}', 422, "body.context"),
        ("/api/assemble", b'{"catalog": "demo", "extra": 1}', 422, "body.extra"),
        ("/api/assemble", b"[" * 200_000, 422, "body: the JSON is nested too deeply to read"),
        ("/api/assemble", b'{"catalog": "nope"}', 404, "no catalog named 'nope'"),
        ("/api/assemble", b'{"catalog": "../etc"}', 400, "not a catalog name"),
        ("/api/assemble", b'{"catalog": "demo@>9"}', 404, "no version of 'demo'"),
        (
            "/api/assemble",
            b'{"catalog": "demo", "context": {"tools": 3}}',
            422,
            "body.context.tools: must be a list (an array), not a number (3)",
        ),
        ("/api/verify", b'{"lock": "x = "}', 400, "invalid TOML"),
        ("/system-prompt", b'{"template": 5}', 422, "body.template"),
    ],
)
def test_bad_requests_get_a_message(
    client: TestClient, path: str, content: bytes, status: int, words: str
) -> None:
    method = client.put if path == "/system-prompt" else client.post
    response = method(path, content=content, headers={"content-type": "application/json"})
    assert words in _error(response, status)


def test_size_limits(client: TestClient) -> None:
    huge = b'{"catalog": "demo", "context": {"append": "' + b"x" * 1_100_000 + b'"}}'
    response = client.post(
        "/api/assemble", content=huge, headers={"content-type": "application/json"}
    )
    assert "larger than 1048576 bytes" in _error(response, 413)

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams
        yield b'{"catalog": "demo", "context": {"append": "'
        for _ in range(20):
            yield b"x" * 100_000
        yield b'"}}'

    streamed = client.post(
        "/api/assemble", content=chunks(), headers={"content-type": "application/json"}
    )
    _error(streamed, 413)
    too_long = client.put("/system-prompt", json={"template": "x" * 100_001})
    assert "at most 100000 characters" in _error(too_long, 422)


# -- the JSON API


def test_catalogs_versions_and_show(client: TestClient) -> None:
    listed = client.get("/api/catalogs").json()["catalogs"]
    assert {"name": "demo", "versions": ["1.0.0", "2.0.0"], "problem": None} in listed
    versions = client.get("/api/catalogs/demo").json()["versions"]
    # The fixture's parts count len(body) // 4 tokens each.
    assert [(v["version"], v["parts"], v["tokens"]) for v in versions] == [
        ("1.0.0", 6, 5 + 5 + 8 + 5 + 5 + 4),
        ("2.0.0", 6, 8 + 3 + 8 + 5 + 5 + 4),
    ]
    shown = client.get("/api/catalogs/demo/2.0.0").json()
    ids = [p["id"] for p in shown["parts"]]
    assert ids == ["intro", "brand-new", "kept-text", "style", "bash-tips", "bash"]
    assert shown["tools"] == ["Bash"]
    assert shown["parts"][0]["share"] == round(100 * 8 / 33, 1)
    _error(client.get("/api/catalogs/demo/9.9.9"), 404)


def test_assemble_explains_and_counts(client: TestClient) -> None:
    result = client.post(
        "/api/assemble", json={"catalog": "demo@1", "context": {"tools": ["Bash"]}}
    ).json()
    assert result["version"] == "1.0.0"
    assert result["text"].startswith("You are a demo agent.\n\nOld rules that go away.")
    assert [t["name"] for t in result["tools"]] == ["Bash"]
    assert "+ intro" in result["explain"]
    without = client.post("/api/assemble", json={"catalog": "demo@1"}).json()
    assert without["tools"] == []
    assert [e["id"] for e in without["excluded"]] == ["bash-tips", "bash"]
    assert without["tokens"] < result["tokens"]
    report = client.post("/api/tokens", json={"catalog": "demo@1"}).json()
    assert report["tokens"] == without["tokens"]
    assert [p["id"] for p in report["parts"]] == ["intro", "old-rules", "moved-text", "style"]
    parts_and_separators = sum(p["tokens"] for p in report["parts"]) + report["separator_tokens"]
    assert parts_and_separators == report["tokens"]


def test_diff_and_verify(client: TestClient, catalogs: Path, tmp_path: Path, capsys: Any) -> None:
    result = client.get("/api/diff", params={"old": "demo@1.0.0", "new": "demo@2.0.0"}).json()
    statuses = {p["id"]: p["status"] for p in result["parts"]}
    assert statuses["brand-new"] == "added"
    assert statuses["old-rules"] == "removed"
    lock = tmp_path / "demo.lock"
    code, _, _ = run_cli(capsys, "lock", "demo@1.0.0", "--path", str(catalogs), "-o", str(lock))
    assert code == 0
    ok = client.post("/api/verify", json={"lock": lock.read_text()}).json()
    assert (ok["ok"], ok["installed_version"], ok["problems"]) == (True, "1.0.0", [])
    tampered = lock.read_text().replace('version = "1.0.0"', 'version = "2.0.0"', 1)
    bad = client.post("/api/verify", json={"lock": tampered}).json()
    assert bad["ok"] is False and bad["problems"]


def test_openapi_describes_the_routes(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/system-prompt",
        "/system-prompt/variables",
        "/conversations/{conversation_id}",
        "/conversations/{conversation_id}/rebuild",
        "/api/catalogs",
        "/api/assemble",
        "/api/tokens",
        "/api/diff",
        "/api/verify",
    ):
        assert path in paths
    assert set(paths["/system-prompt"]) == {"get", "put"}


def test_the_openapi_description_shows_the_librarys_models(client: TestClient) -> None:
    """The request bodies are the library's models: the context a client sends is the
    Context of `catalog schema context`, described once under components."""
    document = client.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert {"Context", "Environment", "ProjectFile", "SessionInfo"} <= set(schemas)
    assert {"tools", "env", "files", "variables", "token_budget"} <= set(
        schemas["Context"]["properties"]
    )
    assert schemas["Context"]["additionalProperties"] is False
    for body in ("AssembleBody", "ConstructBody", "RebuildBody"):
        context = schemas[body]["properties"]["context"]
        assert context["$ref"] == "#/components/schemas/Context", body
    assembled = document["paths"]["/api/assemble"]["post"]["requestBody"]
    reference = assembled["content"]["application/json"]["schema"]["$ref"]
    assert reference == "#/components/schemas/AssembleBody"


def test_the_openapi_description_declares_the_error_body(client: TestClient) -> None:
    """Every operation declares the one error body for its 422, 4XX and 5XX answers, in
    place of FastAPI's own 422 body (``{"detail": [...]}``), which no answer has; the
    declared body has the keys of the answers the server sends."""
    document = client.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert "HTTPValidationError" not in schemas and "ValidationError" not in schemas
    reference = {"$ref": "#/components/schemas/ErrorAnswer"}
    operations = [op for path in document["paths"].values() for op in path.values()]
    assert len(operations) > 15
    for operation in operations:
        for status in ("422", "4XX", "5XX"):
            answer = operation["responses"][status]
            assert answer["content"]["application/json"]["schema"] == reference, operation
    assert schemas["ErrorAnswer"]["required"] == ["error"]
    detail = schemas[schemas["ErrorAnswer"]["properties"]["error"]["$ref"].split("/")[-1]]
    assert detail["properties"]["field"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    # The answers the server sends have exactly the declared keys, all of them required.
    answers = [
        client.post("/api/assemble", json={"catalog": "demo", "context": {"tools": 3}}),
        client.get("/api/catalogs/nothing-here"),
        client.put("/system-prompt", content=b"{}", headers={"Content-Type": "text/plain"}),
    ]
    assert [answer.status_code for answer in answers] == [422, 404, 415]
    for answer in answers:
        body = answer.json()
        assert set(body) == set(schemas["ErrorAnswer"]["properties"])
        assert set(body["error"]) == set(detail["properties"]) == set(detail["required"])


@pytest.mark.parametrize(
    ("context", "key", "words"),
    [
        ({"tools": 3}, "tools", "must be a list (an array), not a number (3)"),
        ({"env": {"cwd": 5}}, "env.cwd", "must be text, not a number (5)"),
        ({"token_budget": "9"}, "token_budget", "must be an integer, not text ('9')"),
        ({"colour": 1}, "colour", "unknown key 'colour'; remove it or check its spelling"),
        ({"toolz": ["Bash"]}, "toolz", "unknown key 'toolz'; did you mean 'tools'?"),
        ({"env": {"cwdd": "/p"}}, "env.cwdd", "unknown key 'cwdd'; did you mean 'cwd'?"),
        ({"project_files": [{"path": "A.md"}]}, "project_files[0].content",
         "missing required key 'content'"),
    ],
)  # fmt: skip
def test_a_bad_context_gets_the_words_a_context_file_gets(
    client: TestClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    context: dict[str, Any],
    key: str,
    words: str,
) -> None:
    """The same mistake in a request's context and in a context file gets the same words;
    the request's names the field."""
    for path, body in (
        ("/api/assemble", {"catalog": "demo", "context": context}),
        ("/conversations/c", {"catalog": "tpl", "context": context}),
        ("/conversations/c/rebuild", {"catalog": "tpl", "context": context}),
    ):
        method = client.post if path.endswith(("assemble", "rebuild")) else client.put
        response = method(path, json=body)
        assert _error(response, 422) == f"body.context.{key}: {words}"
        error = response.json()["error"]
        assert error["field"] == f"body.context.{key}"
        assert "Context schema" in error["hint"]
    written = tmp_path / "context.json"
    written.write_text(__import__("json").dumps(context), encoding="utf-8")
    code, _, err = run_cli(capsys, "assemble", "pi", "--context", str(written))
    assert code == 2
    assert f"{key}: {words}" in err


def test_every_problem_of_a_body_is_named(client: TestClient) -> None:
    response = client.post(
        "/api/assemble", json={"catalog": 5, "agent": None, "context": {"tools": [1]}}
    )
    assert _error(response, 422) == (
        "body.catalog: must be text, not a number (5); "
        "body.agent: must be text, not nothing (null); "
        "body.context.tools[0]: must be text, not a number (1)"
    )
    assert "no body" in _error(client.post("/api/assemble"), 422)


def test_catalog_names_follow_the_one_rule(client: TestClient) -> None:
    """Upper case, a path or a name over 100 characters is not a catalog name, with the
    same words from every route."""
    for name in ("Demo", "-demo", ".hidden", "a" * 101):
        for response in (
            client.get(f"/api/catalogs/{name}"),
            client.get(f"/api/catalogs/{name}/1.0.0"),
            client.post("/api/assemble", json={"catalog": name}),
            client.get(f"/catalogs/{name}"),
        ):
            message = _error(response, 400)  # written wrong: nothing was looked for
            assert "is not a catalog name (lowercase letters, digits" in message
    assert client.get("/api/catalogs/demo").status_code == 200


def test_one_catalog_with_two_folders_of_a_version_leaves_the_others_listed(
    client: TestClient, catalogs: Path
) -> None:
    write_catalog(catalogs, "twice", "1.0", parts=[{"id": "a", "body": "A."}])
    write_catalog(catalogs, "twice", "1.0.0", parts=[{"id": "a", "body": "A."}])
    response = client.get("/api/catalogs")
    assert response.status_code == 200
    listed = {entry["name"]: entry for entry in response.json()["catalogs"]}
    assert listed["demo"] == {"name": "demo", "versions": ["1.0.0", "2.0.0"], "problem": None}
    assert listed["twice"]["versions"] == []
    problem = listed["twice"]["problem"]
    assert "folders '1.0' and '1.0.0' hold the same version" in problem["message"]
    assert problem["hint"] == "remove or rename one of the two folders"
    assert str(catalogs) not in response.text
    home = client.get("/")
    assert home.status_code == 200
    assert "hold the same version" in home.text and 'href="/catalogs/demo/2.0.0"' in home.text
    _error(client.get("/api/catalogs/twice"), 400)


def test_sources_are_told_by_kind_never_by_folder(
    catalogs: Path, tmp_path: Path, vendor_entry_point: Path
) -> None:
    settings = ServerSettings(
        paths=(str(catalogs),), store_url=f"sqlite:///{tmp_path / 'p.sqlite'}"
    )
    for served in _client(settings):
        for name, version, kind in (
            ("demo", "1.0.0", "path"),
            ("pi", "1.0.0", "bundled"),
            ("vendor-agent", "0.3.0", "entry point"),
        ):
            shown = served.get(f"/api/catalogs/{name}/{version}")
            assert shown.json()["source"] == kind
            rows = served.get(f"/api/catalogs/{name}")
            assert {row["source"] for row in rows.json()["versions"]} == {kind}
            for answer in (shown, rows):
                assert str(catalogs) not in answer.text
                assert str(vendor_entry_point) not in answer.text


# -- pages


def test_pages_render(client: TestClient) -> None:
    home = client.get("/").text
    assert '<a href="/catalogs/demo">demo</a>' in home
    catalog_page = client.get("/catalogs/demo").text
    assert catalog_page.count("<circle") == 2  # one point per version in the chart
    assert "2.0.0: 33 tokens" in catalog_page
    version = client.get("/catalogs/demo/2.0.0").text
    assert version.count('class="value" width="100.0"') == 2  # the bars of the two largest parts
    assert 'data-tool="Bash"' in client.get("/playground?catalog=demo").text
    assert 'id="template"' in client.get("/editor").text
    assert client.get("/static/app.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/../app.py").status_code == 404


def test_the_chart_draws_reference_figures_where_parts_carry_them(
    client: TestClient, catalogs: Path
) -> None:
    for version, figures in (("1.0.0", (10, 20)), ("2.0.0", (15, None)), ("3.0.0", (None, None))):
        parts = [
            {"id": f"p{i}", "body": "Some text.", **({} if f is None else {"reference_tokens": f})}
            for i, f in enumerate(figures)
        ]
        write_catalog(catalogs, "counted", version, parts=parts,
                      catalog={"reference_counter": "upstream"})  # fmt: skip
    rows = client.get("/api/catalogs/counted").json()["versions"]
    assert [r["reference_tokens"] for r in rows] == [30, 15, None]
    page = client.get("/catalogs/counted").text
    assert page.count("<circle") == 3
    # two bodies of 10 characters, 2 each; each figure named by its counter
    assert "1.0.0: 4 tokens (cl100k_base), reference 30 (upstream)" in page
    assert page.count('<polyline class="reference"') == 1


def test_diff_page_reads_like_a_review(
    client: TestClient, catalogs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = client.get("/diff", params={"old": "demo@1.0.0", "new": "demo@2.0.0"}).text
    assert '<li class="new"><b>NEW</b> <a href="/catalogs/demo/parts/brand-new">brand-new' in page
    assert '<li class="removed"><b>REMOVED</b> <a href="/catalogs/demo/parts/old-rules">' in page
    assert (
        '<li class="renamed"><b>RENAMED</b> moved-text → <a href="/catalogs/demo/parts/kept-text">'
        in page
    )
    assert '<li class="changed"><b>CHANGED</b> <a href="/catalogs/demo/parts/intro">intro' in page
    # Whitespace only: folded with the minor changes, after the rest.
    assert page.index("minor change") > page.index("CHANGED")
    assert '<li class="minor"><b>whitespace</b> <a href="/catalogs/demo/parts/style">style' in page
    assert (
        '<li class="assembly"><b>ASSEMBLY</b> <a href="/catalogs/demo/parts/bash-tips">' in page
    )  # renumbered
    assert page.index("NEW") < page.index("REMOVED") < page.index("RENAMED")
    by_form = client.get(
        "/diff", params={"name": "demo", "old_version": "1.0.0", "new_version": "2.0.0"}
    )
    assert '<li class="new"><b>NEW</b> <a href="/catalogs/demo/parts/brand-new">' in by_form.text
    report = client.get("/diff/report", params={"old": "demo@1.0.0", "new": "demo@2.0.0"})
    assert "table class=side" in report.text
    # The same template as `catalog diff --format html`: only where the style sheet
    # comes from differs.
    sheet = client.get("/static/diff.css").text
    cli = ("diff", "demo@1.0.0", "demo@2.0.0", "--path", str(catalogs), "--format", "html")
    _, cli_page, _ = run_cli(capsys, *cli)
    link = '<link rel=stylesheet href="/static/diff.css">'
    assert report.text.replace(link, f"<style>{sheet}</style>") == cli_page
    assert "name the two versions" in _error(client.get("/diff"), 400)


# -- the command


def test_serve_refuses_other_addresses_without_a_token(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CATALOG_SERVE_TOKEN", raising=False)
    code, _, err = run_cli(capsys, "serve", "--host", "0.0.0.0")
    assert code == 2
    assert "binding to 0.0.0.0 exposes the server" in err and "--token" in err


def test_serve_says_how_to_install_the_extra(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(__import__("sys").modules, "uvicorn", None)
    code, _, err = run_cli(capsys, "serve")
    assert code == 2
    assert "pip install 'agent-prompt-catalog[serve]'" in err


def test_serve_checks_the_store_and_folders_before_starting(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run_cli(capsys, "serve", "--store", "mysql://u:pw@db/x")
    assert code == 2
    assert "unknown prompt store URL 'mysql://u:***@db/x'" in err and "pw" not in err
    code, _, err = run_cli(capsys, "serve", "--store", f"sqlite:///{tmp_path}", "--path", "nowhere")
    assert code == 2
    assert "cannot open the prompt store" in err
    store = f"sqlite:///{tmp_path / 'p.sqlite'}"
    code, _, err = run_cli(capsys, "serve", "--store", store, "--path", str(tmp_path / "nowhere"))
    assert code == 2
    assert "does not exist" in err


_ODD_BODIES: list[object] = [
    None, [], "text", 1, {"catalog": None}, {"catalog": ["demo"]}, {"catalog": "demo", "agent": 5},
    {"catalog": "demo", "agent": ""}, {"catalog": "demo", "context": {"variables": {"nope": 1}}},
    {"catalog": "demo", "context": {"env": "x"}}, {"catalog": "tpl", "context": {"session": 5}},
    {"catalog": "demo", "context": {"overrides": {"nope": "x"}}}, {"catalog": "demo@@1"},
    {"catalog": "demo", "counter": "no-such-counter"}, {"template": None}, {"lock": 5},
    {"lock": "[catalog]\nname = 1"}, {"context": {"tools": [[]]}, "append": 3},
    {"catalog": "tpl", "context": {"token_budget": -1}},
]  # fmt: skip
_WRITES = [
    ("PUT", "/system-prompt"), ("PUT", "/conversations/odd"),
    ("POST", "/conversations/odd/rebuild"), ("POST", "/api/assemble"), ("POST", "/api/tokens"),
    ("POST", "/api/verify"),
]  # fmt: skip


@pytest.mark.parametrize(("method", "path"), _WRITES)
def test_odd_bodies_never_make_a_500(client: TestClient, method: str, path: str) -> None:
    client.put("/conversations/odd", json={"catalog": "tpl"})
    for body in _ODD_BODIES:
        response = client.request(method, path, json=body)
        assert response.status_code < 500, (body, response.text)
        if response.status_code >= 400:
            _error(response, response.status_code)


@pytest.mark.parametrize(
    "path",
    [
        "/api/catalogs/..",
        "/api/catalogs/demo/..%2F..",
        "/api/catalogs/demo/not-a-version",
        "/catalogs/%00",
        "/api/diff?old=../etc&new=demo",
        "/diff?old=demo@1&new=demo@%3E%3E2",
        "/playground?catalog=nope",
        "/conversations/" + "x" * 300,
    ],
)
def test_odd_paths_are_a_4xx(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert 400 <= response.status_code < 500, response.text


def test_an_error_lists_every_problem_of_the_input(client: TestClient) -> None:
    """A lock with several problems is answered with all of them, as the command line
    lists them, not the first one alone."""
    lock = 'lock = 1\n[catalog]\nname = "demo"\nversion = 5\n[parts]\na = "short"\n'
    answer = client.post("/api/verify", json={"lock": lock})
    assert answer.status_code == 400
    message = answer.json()["error"]["message"]
    assert "catalog.version: must be text, not a number (5)" in message
    assert "catalog.manifest_sha256: missing required key 'manifest_sha256'" in message
    assert "parts.a: must match the pattern" in message
