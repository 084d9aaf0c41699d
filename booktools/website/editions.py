"""The Jupyter Book configuration of each edition, derived from ``_config.yml`` and ``_toc.yml``.

Only what differs between editions is derived (``booktools.website.jupyter_book`` writes the result to
``_build/editions/<code>/`` and builds from it):

- the language (Sphinx ``language``, hence ``<html lang>``, the theme's translations
  and the search index) and the book's title;
- the table of contents, whose ``chapters/en/`` entries point at the edition's own
  pages (the edition's folder is the source folder of its build);
- ``repository.path_to_book``, so that each "open in Colab" button opens
  ``notebooks/<code>/<framework>/<page>.ipynb`` of the repository;
- the settings of ``booktools.website.extension`` (``sphinx.config.book``, a
  ``booktools.website.sphinx_settings.BookSettings``), and paths made
  absolute (the bibliography, local extensions);
- the edition's address, ``html.baseurl`` (``<baseurl><code>/``), and the settings of the
  metadata extensions made from the site's (``booktools.website.site_url``).
"""

from __future__ import annotations

import copy
import dataclasses
import posixpath
from typing import Any

from sphinx_external_toc.api import Document, FileItem, GlobItem, SiteMap, TocTree
from sphinx_external_toc.parsing import create_toc_dict, parse_toc_yaml

from booktools.configuration import config_file
from booktools.configuration.config_file import Edition
from booktools.configuration.schema import read_yaml
from booktools.project import SOURCE_LANGUAGE, Project
from booktools.sources.frameworks import DEFAULT as DEFAULT_FRAMEWORK
from booktools.sources.frameworks import FRAMEWORKS
from booktools.sources.strings import EditionStrings, load_strings
from booktools.website import site_url
from booktools.website.sphinx_settings import CONFIG_VALUE as BOOK_SETTINGS
from booktools.website.sphinx_settings import BookSettings, PdfLink, SiteEdition


class BuildError(Exception):
    """The configuration or an edition's files do not allow a build."""


def editions_to_build(config: dict[str, Any], project: Project) -> list[Edition]:
    """Return the editions ``_config.yml`` (read as ``config``) lists whose folder exists, checking each has every page.

    Raises:
        ConfigError: if the settings booktools reads are invalid (``booktools.configuration.config_file``).
        BuildError: if a folder under ``chapters/`` is not a configured edition,
            or an edition lacks a page that ``_toc.yml`` names.
    """
    configured = {edition.code: edition for edition in config_file.configured_editions(config_file.parse(config))}
    try:
        present = project.editions()
    except config_file.ConfigError as error:
        raise BuildError(str(error)) from error
    for code in present:
        try:
            project.pages(code)
        except (FileNotFoundError, ValueError) as error:
            raise BuildError(f"edition {code!r}: {error}") from error
    return [configured[code] for code in configured if code in present]


def _retarget(entry: str, project: Project) -> str:
    prefix = f"{project.relative(project.edition_dir(SOURCE_LANGUAGE))}/"
    if not entry.startswith(prefix):
        raise BuildError(f"{project.relative(project.toc_file)} entry {entry!r} is not under {prefix}")
    return entry[len(prefix) :]


def _retarget_tree(tree: TocTree, project: Project) -> TocTree:
    items = [
        GlobItem(_retarget(item, project))
        if isinstance(item, GlobItem)
        else FileItem(_retarget(item, project))
        if isinstance(item, FileItem)
        else item
        for item in tree.items
    ]
    return dataclasses.replace(tree, items=items)


def edition_toc(project: Project) -> dict[str, Any]:
    """Return ``_toc.yml`` with every page path made relative to the edition's folder.

    ``chapters/en/attention-scoring-functions`` becomes
    ``attention-scoring-functions``; the edition's folder is the source folder of
    its build, so the same table of contents serves every edition. The file is read
    and written by sphinx-external-toc, as Jupyter Book reads it.

    Raises:
        BuildError: if an entry is not an English page.
    """
    site_map = parse_toc_yaml(project.toc_file)
    documents = [
        Document(
            _retarget(document.docname, project),
            [_retarget_tree(tree, project) for tree in document.subtrees],
            document.title,
        )
        for document in site_map.values()
    ]
    root = _retarget(site_map.root.docname, project)
    retargeted = SiteMap(next(d for d in documents if d.docname == root), site_map.meta, site_map.file_format)
    for document in documents:
        retargeted[document.docname] = document
    toc: dict[str, Any] = create_toc_dict(retargeted)
    return toc


def config_mapping(project: Project) -> dict[str, Any]:
    """``_config.yml`` as the mapping Jupyter Book reads, validated first (``Project.config``).

    Raises:
        booktools.configuration.schema.ConfigError: if the settings booktools reads are wrong (naming file, key).
    """
    project.config()
    data = read_yaml(project.config_file, project.relative(project.config_file))
    return data if isinstance(data, dict) else {}


def strings_config(strings: EditionStrings) -> dict[str, Any]:
    """The Sphinx settings that carry an edition's strings into the other extensions of its build.

    The book's own extension gets its strings in its settings (:func:`book_settings`);
    the slides link is in the pages.
    """
    return {
        "nb_code_prompt_show": strings.code_prompt_show,
        "nb_code_prompt_hide": strings.code_prompt_hide,
        "togglebutton_hint": strings.toggle_hint,
        "togglebutton_hint_hide": strings.toggle_hint_hide,
    }


def edition_config(config: dict[str, Any], edition: Edition, built: list[Edition], project: Project) -> dict[str, Any]:
    """Return the Jupyter Book configuration of ``edition``, derived from ``_config.yml``.

    ``built`` lists every edition of this build, for the language switcher.
    """
    base = site_url.base_url(config)
    derived = copy.deepcopy(config)
    derived.pop("editions", None)
    derived["title"] = edition.title
    derived.setdefault("html", {})["baseurl"] = site_url.edition_url(base, edition.code)
    if "bibtex_bibfiles" in derived:
        derived["bibtex_bibfiles"] = [str((project.root / path).resolve()) for path in derived["bibtex_bibfiles"]]

    repository = derived.setdefault("repository", {})
    book_path = repository.get("path_to_book") or ""
    # The Colab button opens the derived notebook of the default framework; the page's
    # script (extension/static/framework-colab.js) swaps in the framework the reader chose.
    repository["path_to_book"] = posixpath.join(
        book_path, project.relative(project.notebooks_dir), edition.code, DEFAULT_FRAMEWORK.name
    ).strip("/")

    sphinx = derived.setdefault("sphinx", {})
    local = sphinx.get("local_extensions") or {}
    sphinx["local_extensions"] = {name: str((project.root / path).resolve()) for name, path in local.items()}
    sphinx_config = sphinx.get("config") or {}
    sphinx_config.update(edition.config)  # the edition's own Sphinx settings, if any
    strings = load_strings(project, edition.code)
    sphinx_config.update(strings_config(strings))  # its interface strings, for the other extensions
    sphinx_config.update(site_url.url_config(base, edition, built))
    sphinx_config.update(language=edition.code, project=edition.title)
    configured = sphinx_config.get(BOOK_SETTINGS)
    sphinx_config[BOOK_SETTINGS] = book_settings(configured, edition, built, base, strings, project)
    sphinx["config"] = sphinx_config
    return derived


def book_settings(
    configured: object, edition: Edition, built: list[Edition], base: str, strings: EditionStrings, project: Project
) -> dict[str, Any]:
    """Return the extension's settings (``booktools.website.sphinx_settings``) for ``edition``'s build.

    ``configured`` is what ``_config.yml`` (or the edition's own settings) sets under
    ``sphinx.config.book``; the edition, the editions, the site's URL, the PDFs and the
    edition's interface strings (``strings``) are derived here.

    Raises:
        BuildError: if the configured settings are not :class:`BookSettings`'s.
    """
    try:
        chosen = BookSettings.from_config(configured or {}, "_config.yml: sphinx.config")
    except ValueError as error:
        raise BuildError(str(error)) from error
    derived = dataclasses.replace(
        chosen,
        edition=edition.code,
        editions=tuple(SiteEdition(other.code, other.name, other.title, other.locale) for other in built),
        site_url=base,
        # The book's PDFs (booktools.pdf), linked from every page (booktools.website.extension.pdf_links).
        pdf_links=tuple(PdfLink(f.name, f.label, project.pdf_href(f.name)) for f in FRAMEWORKS),
        live_strings=strings.live,
        pdf_strings=strings.pdf,
        api_strings=strings.api,
        theme_words=dict(strings.theme_words),
        footer_author=strings.footer_author,
    )
    return derived.as_config()
