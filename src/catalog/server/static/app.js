// prompt-catalog web UI: the playground, the template editor, the part page's diffs and the
// release page's rollback (the other pages need no script).
// Plain browser JavaScript, no libraries: it talks to the JSON routes of the same server.
"use strict";

const $ = (selector) => document.querySelector(selector);

// Hidden characters (controls, bidi, zero-width, tags) written as <U+XXXX>, by the rule of
// catalog.text.visible, which the page carries: a bidi override cannot reorder a label.
const HIDDEN = new RegExp(document.body.dataset.hidden, "gu");
const codePoint = (c) => c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
const visible = (text) => text.replace(HIDDEN, (run) => [...run].map((c) => "<U+" + codePoint(c) + ">").join(""));

async function api(method, path, body, headers) {
  const response = await fetch(path, {
    method,
    headers: Object.assign({ "Content-Type": "application/json" }, headers || {}),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    // Every error answer is {"error": {"status", "message", "field", "hint"}}.
    const error = data.error || {};
    const failure = new Error(error.message || response.statusText || "request failed");
    failure.hint = error.hint || null;
    throw failure;
  }
  return data;
}

function debounce(fn, ms) {
  let timer = null;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
  };
}

function variableValue(input) {
  const type = input.dataset.type;
  if (type === "bool") return input.checked;
  if (type === "int") return parseInt(input.value || "0", 10);
  if (type === "float") return parseFloat(input.value || "0");
  if (type === "str") return input.value;
  if (type === "list") {
    return input.value.split(",").map((s) => s.trim()).filter((s) => s);
  }
  return JSON.parse(input.value || "null");
}

function fillExplain(result) {
  const rows = [];
  for (const part of result.parts) rows.push(["+", part.id, part.tokens, part.why]);
  for (const tool of result.tools) rows.push(["T", tool.name, tool.tokens, "tool description"]);
  for (const left of result.excluded) rows.push(["-", left.id, "", left.why]);
  const body = $("#explain tbody");
  body.replaceChildren();
  const classes = ["", "id", "num", "why"];
  const labels = ["", "part", "tokens", "why"]; // a narrow page shows each cell's column
  for (const cells of rows) {
    const tr = document.createElement("tr");
    tr.className = cells[0] === "-" ? "out" : "in";
    cells.forEach((cell, index) => {
      const td = document.createElement("td");
      td.className = classes[index];
      td.dataset.label = labels[index];
      td.textContent = visible(String(cell));
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
}

// The playground's failure, at the top of the result, with the result cleared: a prompt
// left on screen under an error would read as the answer to the form as it is now.
function showPlayError(failure) {
  const error = $("#play-error");
  error.replaceChildren();
  error.hidden = failure === null;
  if (failure === null) return;
  const message = document.createElement("p");
  message.textContent = visible(failure.message);
  error.appendChild(message);
  if (failure.hint) {
    const hint = document.createElement("p");
    hint.className = "hint";
    hint.textContent = "hint: " + visible(failure.hint);
    error.appendChild(hint);
  }
  for (const id of ["#counter", "#total"]) $(id).textContent = "…";
  $("#fingerprint").textContent = "";
  $("#prompt").textContent = "";
  $("#explain tbody").replaceChildren();
}

function playground() {
  const form = $("#play-form");
  const name = document.body.dataset.name;
  let asked = 0;
  const update = async () => {
    let context;
    try {
      context = JSON.parse($("#context").value || "{}");
      if (typeof context !== "object" || context === null || Array.isArray(context)) {
        throw new Error("the context must be a JSON object");
      }
      const variables = Object.assign({}, context.variables || {});
      for (const input of form.querySelectorAll("[data-var]")) {
        variables[input.dataset.var] = variableValue(input);
      }
      context.variables = variables;
      const tools = [...form.querySelectorAll("[data-tool]:checked")].map((i) => i.dataset.tool);
      if (form.querySelector("[data-tool]")) context.tools = tools;
      const model = $("#model").value.trim();
      if (model) context.model = model;
    } catch (e) {
      asked++; // an answer still on its way is for the form as it was
      showPlayError(e);
      return;
    }
    const mine = ++asked;
    try {
      const result = await api("POST", "/api/assemble", {
        catalog: name + "@==" + $("#version").value,
        agent: $("#agent").value,
        context,
      });
      if (mine !== asked) return; // a newer request is on its way
      showPlayError(null);
      $("#counter").textContent = visible(result.counter);
      $("#total").textContent = String(result.tokens);
      $("#fingerprint").textContent = "fingerprint " + result.fingerprint.slice(0, 12);
      $("#prompt").textContent = visible(result.text);
      fillExplain(result);
    } catch (e) {
      if (mine === asked) showPlayError(e);
    }
  };
  const later = debounce(update, 120);
  form.addEventListener("input", later);
  form.addEventListener("change", later);
  const reload = (ref) => {
    window.location.search = "?catalog=" + encodeURIComponent(ref);
  };
  $("#catalog-name").addEventListener("change", (e) => reload(e.target.value));
  $("#version").addEventListener("change", (e) => reload(name + "@==" + e.target.value));
  update();
}

function insertAtCursor(area, text, caretFromEnd) {
  const start = area.selectionStart;
  const end = area.selectionEnd;
  area.value = area.value.slice(0, start) + text + area.value.slice(end);
  const caret = start + text.length - (caretFromEnd || 0);
  area.focus();
  area.setSelectionRange(caret, caret);
  area.dispatchEvent(new Event("input", { bubbles: true }));
}

async function editor() {
  const modal = $("#editor");
  const area = $("#template");
  const status = $("#status");
  const catalog = document.body.dataset.catalog;
  let saved = null; // the template the server has
  let previewed = "";
  // The page under the editor shows the template and its preview, and whether it is saved.
  const show = () => {
    $("#shown-template").textContent = visible(area.value);
    $("#shown-preview").textContent = visible(previewed);
    $("#saved-state").textContent =
      area.value === saved ? "This is the template the server uses." : "Edited, not saved yet.";
  };
  const open = () => {
    modal.classList.add("open");
    area.focus();
  };
  const close = () => {
    modal.classList.remove("open");
    show();
    $("#open-editor").focus();
  };
  $("#open-editor").addEventListener("click", open);
  $("#close-editor").addEventListener("click", close);
  modal.addEventListener("keydown", (e) => {
    if (e.key === "Escape") close();
  });
  const preview = debounce(async () => {
    try {
      const result = await api("POST", "/api/assemble", {
        catalog,
        context: {
          variables: { template: area.value },
          env: { cwd: "/home/user/project", os: "Linux", model: "a-model" },
          files: { "AGENTS.md": "(the text of AGENTS.md)" },
        },
      });
      previewed = result.text;
    } catch (e) {
      previewed = e.message;
    }
    $("#preview").textContent = visible(previewed);
    show();
  }, 150);
  area.addEventListener("input", preview);
  const [template, variables] = await Promise.all([
    api("GET", "/system-prompt"),
    api("GET", "/system-prompt/variables"),
  ]);
  saved = template.template;
  area.value = saved;
  for (const variable of variables.variables) {
    const button = document.createElement("button");
    button.type = "button";
    const tag = "[" + variable.type + ":" + variable.name + "]";
    button.textContent = visible(variable.dynamic ? "[" + variable.type + ":…]" : tag);
    button.title = visible(variable.description);
    button.dataset.variable = variable.type + ":" + variable.name;
    // A dynamic type (file:) takes any name: the caret lands where the name goes.
    button.addEventListener("click", () => insertAtCursor(area, tag, variable.dynamic ? 1 : 0));
    $("#variables").appendChild(button);
  }
  $("#save").addEventListener("click", async () => {
    const token = $("#token");
    const headers = token && token.value ? { Authorization: "Bearer " + token.value } : {};
    status.textContent = "saving…";
    try {
      const answer = await api("PUT", "/system-prompt", { template: area.value }, headers);
      saved = answer.template;
      status.textContent = "saved";
    } catch (e) {
      status.textContent = visible(e.message);
    }
    show();
  });
  show();
  preview();
  open();
}

// A part's changes: each opens the side-by-side report of its diff, loaded on first
// opening, unfolded, in a frame as tall as the report (the report is this server's page).
function part() {
  const fit = (frame) => {
    const body = frame.contentDocument.body;
    const style = getComputedStyle(body);
    const margins = parseFloat(style.marginTop) + parseFloat(style.marginBottom);
    frame.style.height = Math.ceil(body.offsetHeight + margins) + 2 + "px";
  };
  for (const details of document.querySelectorAll("details[data-report]")) {
    const frame = details.querySelector("iframe");
    frame.addEventListener("load", () => {
      for (const folded of frame.contentDocument.querySelectorAll("details")) folded.open = true;
      fit(frame);
      // Folding the report's part again changes its height: the frame follows.
      new ResizeObserver(() => fit(frame)).observe(frame.contentDocument.body);
    });
    details.addEventListener("toggle", () => {
      if (details.open && !frame.getAttribute("src")) frame.src = details.dataset.report;
    });
  }
}

// A release's rollback: a write like the editor's Save (the token when the page asks for
// it; the server checks that the page is its own). Refused, the page says why.
function release() {
  const label = document.body.dataset.label;
  const button = $("#rollback");
  const status = $("#rollback-status");
  if (!button) return; // changed once only: nothing to roll back to
  const asking = $("#confirm");
  button.addEventListener("click", () => {
    asking.hidden = false;
    $("#confirm-rollback").focus();
  });
  $("#cancel-rollback").addEventListener("click", () => {
    asking.hidden = true;
    button.focus();
  });
  $("#confirm-rollback").addEventListener("click", async () => {
    const token = $("#token");
    const headers = token && token.value ? { Authorization: "Bearer " + token.value } : {};
    asking.hidden = true;
    status.className = "status";
    status.textContent = "rolling back…";
    try {
      const path = "/releases/" + encodeURIComponent(label) + "/rollback";
      const answer = await api("POST", path, undefined, headers);
      // The page again, as the store has it now, saying which change this was.
      window.location.search = "?done=" + encodeURIComponent(answer.change);
    } catch (e) {
      status.className = "status error";
      status.textContent = visible(e.hint ? e.message + " (" + e.hint + ")" : e.message);
    }
  });
}

const pages = { playground, editor, part, release };
const start = pages[document.body.dataset.page];
if (start) start();
