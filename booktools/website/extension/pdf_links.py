"""Links to the book's PDFs, one per framework, in the download menu of every page.

``make book`` prints the whole book of each edition once per framework
(``booktools.pdf``) into ``_build/html/<code>/pdf/``. Every page of the edition
links the three PDFs from sphinx-book-theme's download menu, where they replace
the theme's "Print to PDF" button (which printed the one page with every
framework's tabs); a page without a download menu of its own (search, the
general index) gets a menu holding only the PDFs. The links follow the tabs'
order, "PyTorch | JAX | TensorFlow"; ``static/framework-colab.js`` moves the
framework the reader chose to the top of the menu.

``booktools.website.editions`` passes what this needs in the extension's settings
(``booktools.website.sphinx_settings.BookSettings``):

- ``pdf_links``: one ``PdfLink`` per framework, its ``href`` relative to the
  edition's root (``booktools.project.Project.pdf_href``);
- ``pdf_strings``: ``booktools.sources.strings.PdfStrings`` of the edition.
"""

from __future__ import annotations

from typing import Any

from pydata_sphinx_theme.utils import get_theme_options_dict  # type: ignore[import-untyped]
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from booktools.sources.strings import PdfStrings
from booktools.website.sphinx_settings import CONFIG_VALUE, settings

ICON = "fas fa-file-pdf"
MENU_LABEL = "download-buttons"  # sphinx-book-theme's download menu
PRINT_BUTTON = "download-pdf-button"  # its "Print to PDF" button, replaced
LINK_LABEL = "download-pdf-{name}"  # the class btn-download-pdf-<framework> of each link


def pdf_strings(app: Sphinx) -> PdfStrings:
    """Return the edition's PDF strings (the settings' ``pdf_strings``).

    Raises:
        ExtensionError: if the settings lack them.
    """
    strings = settings(app).pdf_strings
    if strings is None:
        raise ExtensionError(f"{CONFIG_VALUE}.pdf_strings is not set: the edition's strings.yml gives them")
    return strings


def pdf_buttons(app: Sphinx, context: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the menu entries of the PDFs, with URLs relative to the page being written."""
    strings = pdf_strings(app)
    return [
        {
            "type": "link",
            "url": context["pathto"](link.href, 1),
            "text": strings.link.format(framework=link.label),
            "tooltip": strings.link_title.format(framework=link.label),
            "icon": ICON,
            "label": LINK_LABEL.format(name=link.name),
        }
        for link in settings(app).pdf_links
    ]


def add_pdf_links(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Put the PDFs' links into the page's download menu, in place of the theme's print button."""
    buttons = context.get("header_buttons")
    if app.builder.format != "html" or not settings(app).pdf_links or not isinstance(buttons, list):
        return
    if str(get_theme_options_dict(app).get("use_download_button", True)).lower() in {"false", "0", "no"}:
        return
    links = pdf_buttons(app, context)
    for button in buttons:
        if button.get("label") == MENU_LABEL:
            kept = [entry for entry in button["buttons"] if entry.get("label") != PRINT_BUTTON]
            button["buttons"] = kept + links
            return
    menu = {"type": "group", "tooltip": pdf_strings(app).menu, "icon": "fas fa-download"}
    buttons.insert(0, {**menu, "buttons": links, "label": MENU_LABEL})


def setup_pdf_links(app: Sphinx) -> None:
    """Register the settings and, after sphinx-book-theme's header buttons (priority 501), the handler."""
    app.connect("html-page-context", add_pdf_links, priority=502)
