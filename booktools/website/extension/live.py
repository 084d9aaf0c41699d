"""Live code: a button on every notebook page that runs its code cells on a Jupyter kernel.

The button ("Live code", translated per edition) loads Thebe, which turns the page's
code cells into editable cells connected to a kernel. Only the cells a reader sees
become live: the cells shared by every framework and, in each group of framework
tabs, those of the selected framework (``static/live-code.js`` marks them before
Thebe collects its cells). Running a cell first runs the live cells above it that
have not run yet, so that a reader may start anywhere on the page.

Everything is served from the site itself. Thebe (npm ``thebe``, pinned by
``thebe/package-lock.json``) is installed by ``make setup`` into
``.venv/share/d2l-book/thebe/`` with ``npm ci``; after a successful build this
module copies its bundle (scripts and stylesheet, without source maps) into
``_static/thebe/``, and the page loads it only when the reader presses the button.
The bundle is self-contained; npm still installs thebe's dependency tree (all of
JupyterLab's front end), which the lock pins as it stood when thebe 0.9.3 and
thebe-core 0.5.0 came out: ``npm install --package-lock-only --before=2026-04-12``
in ``thebe/`` (resolved today, the ranges name @jupyterlab versions the registry
does not serve). Thebe's fallbacks to CDNs (MathJax 2 for LaTeX outputs,
RequireJS for ipywidgets) stay unused: the page passes no MathJax URL, and the
book has no widgets.
Jupyter Book's own Thebe support (sphinx-thebe) is not used: it loads Thebe from
unpkg.com, and its kernel settings are fixed at build time, while the local
server's token changes with every run. Its page settings are removed.

Where the kernel comes from is the extension's setting ``live_server`` (in
``_config.yml``, ``sphinx.config.book``; ``booktools.website.sphinx_settings``):

- ``local`` (the default): the Jupyter server ``make serve`` starts
  (``booktools.servers.serve``). Its address and per-run token are not in the site: the
  page fetches them from ``booktools.website.assets.SERVER_INFO_PATH``, which only ``make serve``'s web
  server answers, only to its own origin;
- a BinderHub URL (``https://mybinder.org``, or a JupyterHub that offers the
  BinderHub API): Binder builds ``repository.url`` at ``repository.branch`` and
  starts a kernel there.

The interface strings are the setting ``live_strings``, a
``booktools.sources.strings.LiveStrings``, from the edition's ``strings.yml``.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError

from booktools.programs import npm_prefix
from booktools.runtime.kernel import NAME as KERNEL_NAME
from booktools.sources.strings import LiveStrings
from booktools.website.assets import SERVER_INFO_PATH
from booktools.website.sphinx_settings import CONFIG_VALUE, LOCAL_SERVER, settings_of

# Where `make setup` installs the pinned Thebe (npm ci --prefix THEBE_PREFIX).
THEBE_PREFIX = npm_prefix("thebe")
THEBE_STATIC = "thebe"  # under _static/
SETTINGS_ID = "d2l-live-settings"
# The kernel a Binder image offers (the d2l-book kernel spec exists only where make setup ran).
BINDER_KERNEL = "python3"
# What sphinx-thebe writes into every page (its settings for a Binder of its own choosing).
SPHINX_THEBE_MARKERS = ("text/x-thebe-config", "kernelName = ")
SPHINX_THEBE_ASSETS = ("sphinx-thebe.js", "sphinx-thebe.css")  # its loader, which points at a CDN
STRINGS = tuple(field.name for field in dataclasses.fields(LiveStrings))  # the keys live-code.js reads


def thebe_source(prefix: Path = THEBE_PREFIX) -> Path:
    """Return the folder of Thebe's bundle (``index.js``, its chunks, ``thebe.css``)."""
    lib = prefix / "node_modules" / "thebe" / "lib"
    if not (lib / "index.js").is_file():
        raise ExtensionError(
            f"Thebe is missing from {lib}: run `make setup` (npm ci of booktools/website/extension/thebe/)"
        )
    return lib


def live_settings(config: Config) -> dict[str, Any]:
    """Return what ``live-code.js`` needs: the kernel source, the kernel and the strings."""
    book = settings_of(config)
    server = book.live_server
    if book.live_strings is None:
        raise ExtensionError(
            f"{CONFIG_VALUE}.live_strings is not set: expected the keys {sorted(STRINGS)} "
            "(the edition's strings.yml, booktools.sources.strings)"
        )
    strings = dataclasses.asdict(book.live_strings)
    settings: dict[str, Any] = {"strings": strings, "thebe": f"_static/{THEBE_STATIC}/"}
    if server == LOCAL_SERVER:
        settings.update(mode=LOCAL_SERVER, serverInfo=SERVER_INFO_PATH, kernel=KERNEL_NAME)
        return settings
    options = config.html_theme_options
    repository = str(options.get("repository_url", "")).rstrip("/")
    owner_repo = repository.split("github.com/", 1)[-1] if "github.com/" in repository else ""
    if owner_repo.count("/") != 1:
        raise ExtensionError(f"{CONFIG_VALUE}.live_server names a BinderHub: set repository.url to a GitHub repository")
    settings.update(
        mode="binder",
        kernel=BINDER_KERNEL,
        binder={
            "binderUrl": server.rstrip("/"),
            "repo": owner_repo,
            "ref": str(options.get("repository_branch", "") or "main"),
            "repoProvider": "github",
        },
    )
    return settings


def add_live_assets(app: Sphinx, config: Config) -> None:
    """Add the settings (a JSON script), the script and the stylesheet of the Live code button."""
    settings = json.dumps(live_settings(config), ensure_ascii=False).replace("</", "<\\/")
    app.add_js_file(None, body=settings, type="application/json", id=SETTINGS_ID)
    app.add_js_file("live-code.js", loading_method="defer")
    app.add_css_file("live-code.css")


def drop_sphinx_thebe_settings(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Remove the Thebe settings sphinx-thebe appends to every page: the page's are ``live-code.js``'s."""
    for node in list(doctree.findall(nodes.raw)):
        if node.get("format") == "html" and any(marker in node.astext() for marker in SPHINX_THEBE_MARKERS):
            node.parent.remove(node)


def _is_thebe_asset(asset: Any) -> bool:
    filename = str(getattr(asset, "filename", asset) or "")
    body = str(getattr(asset, "attributes", {}).get("body", ""))
    return filename.endswith(SPHINX_THEBE_ASSETS) or "THEBE_JS_URL" in body


def drop_sphinx_thebe_assets(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Remove sphinx-thebe's loader (script and stylesheet) from the page: the Live code button loads Thebe."""
    if app.builder.format != "html":
        return
    for key in ("script_files", "css_files"):
        # In place: later handlers add to this very list.
        if isinstance(context.get(key), list):
            context[key][:] = [asset for asset in context[key] if not _is_thebe_asset(asset)]


def copy_thebe(app: Sphinx, exception: Exception | None) -> None:
    """Copy Thebe's bundle into the built site's ``_static/thebe/``."""
    if exception is not None or app.builder.format != "html":
        return
    source = thebe_source()
    target = Path(app.outdir, "_static", THEBE_STATIC)
    target.mkdir(parents=True, exist_ok=True)
    for file in source.iterdir():
        if file.is_file() and file.name.endswith((".js", ".css", ".txt")):
            shutil.copy2(file, target / file.name)


def setup_live(app: Sphinx) -> None:
    """Register the settings and the handlers of the Live code button."""
    app.connect("config-inited", add_live_assets)
    # After sphinx-thebe (priority 500) has added its settings to the page.
    app.connect("doctree-resolved", drop_sphinx_thebe_settings, priority=600)
    app.connect("html-page-context", drop_sphinx_thebe_assets, priority=400)
    app.connect("build-finished", copy_thebe)
