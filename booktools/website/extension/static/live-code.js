// The "Live code" button (booktools/website/extension/live.py): turns the page's code cells
// into editable cells that run on a Jupyter kernel, with Thebe served from the site.
//
// Only the cells the reader sees go live: the cells outside framework tabs and, in
// every tab set, the cells of the selected framework. Their <pre> is marked with
// MARK before Thebe collects cells by that attribute (nothing else on the page may
// carry it: Thebe replaces every element it matches), so the other frameworks'
// cells stay as they are. The kernel's address comes from the JSON settings the
// build writes into the page: for the local server (make serve) the page fetches
// it, token included, from make serve's own web server; for Binder, Thebe asks the
// BinderHub. Running a cell first runs the live cells above it that have not run
// yet, in order, so the cell's definitions and imports exist.
(function () {
  "use strict";
  const SETTINGS_ELEMENT = document.getElementById("d2l-live-settings");
  const SETTINGS = SETTINGS_ELEMENT ? JSON.parse(SETTINGS_ELEMENT.textContent) : null;
  const GROUP = "framework";
  const MARK = "data-d2l-live-cell";
  // Thebe pairs stored outputs with cells by position; no element matches this, so
  // every live cell gets a fresh output area below its editor.
  const NO_OUTPUT = "[data-d2l-live-no-output]";
  const STATE = "d2lLiveState"; // data-d2l-live-state on <html>: starting, ready, running, failed
  const live = []; // {container, box, run, ran}, in page order (Thebe's order too)
  let framework = null;
  let queue = Promise.resolve();
  let ui = null;

  function text(key, values) {
    let message = SETTINGS.strings[key] || key;
    Object.entries(values || {}).forEach(([name, value]) => {
      message = message.split("{" + name + "}").join(String(value));
    });
    return message;
  }

  // The message, with `...` shown as code (a command to type).
  function say(key, values, state) {
    showPanel();
    ui.message.replaceChildren(
      ...text(key, values)
        .split("`")
        .map((part, i) => {
          if (i % 2 === 0) return document.createTextNode(part);
          const code = document.createElement("code");
          code.textContent = part;
          return code;
        })
    );
    if (state) document.documentElement.dataset[STATE] = state;
  }

  function contentRoot() {
    return document.documentElement.dataset.content_root || "./";
  }

  // A tab's content is shown when the radio input before its label is checked.
  function isShown(content) {
    const label = content.previousElementSibling;
    const input = label && label.previousElementSibling;
    return !input || input.tagName !== "INPUT" || input.checked;
  }

  function selectedFramework() {
    const label = document.querySelector('input:checked + label[data-sync-group="' + GROUP + '"]');
    return label ? label.getAttribute("data-sync-id") : null;
  }

  function frameworkLabel(name) {
    const label = document.querySelector('label[data-sync-group="' + GROUP + '"][data-sync-id="' + name + '"]');
    return label ? label.textContent.trim() : "Python";
  }

  function codeCells() {
    return Array.from(document.querySelectorAll("div.cell")).filter((cell) => cell.querySelector(".cell_input pre"));
  }

  function markCells() {
    codeCells().forEach((container) => {
      const content = container.closest(".sd-tab-content");
      if (content && !isShown(content)) return;
      const source = container.querySelector(".cell_input pre");
      source.setAttribute(MARK, "");
      source.setAttribute("data-language", "python");
      container.classList.add("d2l-live-cell");
      live.push({ container, box: null, run: null, ran: false });
    });
  }

  function loadThebe() {
    const base = new URL(contentRoot() + SETTINGS.thebe, document.baseURI);
    const style = document.createElement("link");
    style.rel = "stylesheet";
    style.href = new URL("thebe.css", base).href;
    document.head.appendChild(style);
    return new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL("index.js", base).href;
      script.onload = () => resolve(window.thebe);
      script.onerror = () => reject(new Error("could not load " + script.src));
      document.head.appendChild(script);
    });
  }

  async function serverOptions() {
    if (SETTINGS.mode !== "local") {
      return { useBinder: true, binderOptions: SETTINGS.binder };
    }
    try {
      const response = await fetch(SETTINGS.serverInfo, { cache: "no-store", credentials: "same-origin" });
      if (!response.ok) return null;
      const info = await response.json();
      return {
        useBinder: false,
        serverSettings: { baseUrl: info.baseUrl, wsUrl: info.wsUrl, token: info.token, appendToken: true },
      };
    } catch (err) {
      return null;
    }
  }

  function setBusy(entry, busy) {
    entry.container.classList.toggle("d2l-live-running", busy);
    entry.container.setAttribute("aria-busy", busy ? "true" : "false");
  }

  // Run the live cells above `index` that have not run yet, then cell `index`;
  // stop at the first error (its traceback is in that cell's output).
  function runUpTo(index) {
    queue = queue.then(async () => {
      const notebook = window.thebe && window.thebe.notebook;
      if (!notebook || !notebook.session) return;
      const todo = live.slice(0, index + 1).filter((entry, i) => i === index || !entry.ran);
      say("running", {}, "running");
      todo.forEach((entry) => setBusy(entry, true));
      try {
        for (const entry of todo) {
          const cell = notebook.cells[live.indexOf(entry)];
          const result = await cell.execute();
          setBusy(entry, false);
          entry.ran = Boolean(result) && !result.error;
          if (!entry.ran) break;
        }
      } finally {
        todo.forEach((entry) => setBusy(entry, false));
        say("done", { framework: frameworkLabel(framework) }, "ready");
      }
    });
    return queue;
  }

  function restart() {
    queue = queue.then(async () => {
      const notebook = window.thebe && window.thebe.notebook;
      if (!notebook || !notebook.session || !notebook.session.kernel) return;
      say("starting", { framework: frameworkLabel(framework) }, "starting");
      await notebook.session.kernel.restart();
      live.forEach((entry) => {
        entry.ran = false;
      });
      say("done", { framework: frameworkLabel(framework) }, "ready");
    });
    return queue;
  }

  function button(label, onClick, className) {
    const element = document.createElement("button");
    element.type = "button";
    element.className = "btn btn-sm " + className;
    element.textContent = label;
    element.addEventListener("click", onClick);
    return element;
  }

  // Our own controls for each Thebe cell: a translated Run button, labelled editor
  // and output, and Shift+Enter bound to the same run.
  function decorateCells() {
    live.forEach((entry, index) => {
      const number = index + 1;
      const box = entry.container.querySelector(".thebe-cell");
      if (!box) return;
      entry.box = box;
      const controls = document.createElement("div");
      controls.className = "d2l-live-controls";
      entry.run = button(text("run"), () => runUpTo(index), "d2l-live-run");
      entry.run.setAttribute("aria-label", text("run_label", { number }));
      controls.appendChild(entry.run);
      const output = box.querySelector(":scope > .thebe-output");
      box.insertBefore(controls, output);
      if (output) {
        output.setAttribute("role", "region");
        output.setAttribute("aria-label", text("output", { number }));
      }
      const editor = box.querySelector(".CodeMirror");
      if (editor && editor.CodeMirror) {
        const cm = editor.CodeMirror;
        const keys = Object.assign({}, cm.getOption("extraKeys") || {}, { "Shift-Enter": () => runUpTo(index) });
        cm.setOption("extraKeys", keys);
        cm.getInputField().setAttribute("aria-label", text("editor", { number }));
      }
    });
  }

  function watchTabs() {
    document.querySelectorAll('label[data-sync-group="' + GROUP + '"]').forEach((label) => {
      const input = document.getElementById(label.getAttribute("for") || "");
      if (!input) return;
      input.addEventListener("change", () => {
        if (selectedFramework() !== framework) say("other_framework", { framework: frameworkLabel(framework) });
      });
    });
  }

  async function start(launch) {
    launch.disabled = true;
    framework = selectedFramework();
    const name = frameworkLabel(framework);
    const server = await serverOptions();
    if (server === null) {
      say("no_server", {}, "failed");
      launch.disabled = false;
      return;
    }
    say("starting", { framework: name }, "starting");
    try {
      markCells();
      const thebe = await loadThebe();
      live.forEach((entry) => {
        const stored = entry.container.querySelector(":scope > .cell_output");
        if (stored) stored.hidden = true; // Thebe shows the live output below the editor
      });
      const running = thebe.bootstrap({
        ...server,
        requestKernel: true,
        useJupyterLite: false,
        mountStatusWidget: false,
        mountActivateWidget: false,
        mountRunButton: false,
        mountRunAllButton: false,
        mountRestartButton: false,
        mountRestartAllButton: false,
        selector: "[" + MARK + "]",
        outputSelector: NO_OUTPUT,
        predefinedOutput: false,
        mathjaxUrl: "", // no LaTeX renderer for outputs: Thebe's would load MathJax 2 from a CDN
        kernelOptions: { name: SETTINGS.kernel, kernelName: SETTINGS.kernel, path: "/" },
        codeMirrorConfig: { theme: "default", lineNumbers: false, viewportMargin: Infinity },
      });
      decorateCells();
      watchTabs();
      const { session } = await running;
      if (!session) throw new Error("no kernel session");
      ui.toolbar.hidden = false;
      say("ready", { framework: name }, "ready");
    } catch (err) {
      say("failed", { error: err && err.message ? err.message : String(err) }, "failed");
    }
  }

  // The panel (the status line and the toolbar), made when the reader first starts live code:
  // put into the article at load, it made the browser restyle the whole article (a new first
  // child), a long task on a phone for what most readers never open.
  function showPanel() {
    if (ui.panel) return;
    const panel = document.createElement("div");
    panel.className = "d2l-live-panel";
    const message = document.createElement("p");
    message.className = "d2l-live-status";
    message.setAttribute("role", "status");
    const toolbar = document.createElement("div");
    toolbar.className = "d2l-live-toolbar";
    toolbar.hidden = true;
    toolbar.append(
      button(text("run_all"), () => runUpTo(live.length - 1), "d2l-live-run-all"),
      button(text("restart"), () => restart(), "d2l-live-restart")
    );
    panel.append(message, toolbar);
    ui.article.prepend(panel);
    Object.assign(ui, { panel, message, toolbar });
  }

  function mount() {
    if (!SETTINGS || codeCells().length === 0) return;
    const article = document.querySelector("article.bd-article") || document.querySelector("main");
    if (!article) return;
    const launch = button("", () => start(launch), "d2l-live-button");
    const icon = document.createElement("span");
    icon.className = "d2l-live-icon";
    icon.setAttribute("aria-hidden", "true");
    icon.textContent = "▶";
    // On a phone the label is read, not shown, so that the header keeps one line and
    // nothing below it moves when the button appears (live-code.css).
    const label = document.createElement("span");
    label.className = "d2l-live-label";
    label.textContent = " " + text("button");
    launch.append(icon, label);
    launch.title = text("button_title");
    ui = { launch, article, panel: null, message: null, toolbar: null };
    const header = document.querySelector(".article-header-buttons");
    if (header) {
      header.prepend(launch);
    } else {
      article.before(launch);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", mount);
  } else {
    mount();
  }
})();
