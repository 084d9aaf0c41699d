"""``_toc.yml``'s reading order, as sphinx-external-toc (the parser Jupyter Book uses) reads the file."""

from __future__ import annotations

from collections.abc import Iterator

from sphinx_external_toc.api import Document, SiteMap


def reading_order(site_map: SiteMap) -> list[str]:
    """The documents of a table of contents in reading order: the root, then each subtree's items, depth first."""

    def walk(document: Document) -> Iterator[str]:
        yield document.docname
        for tree in document.subtrees:
            for item in tree.items:
                if isinstance(item, str):
                    yield from walk(site_map[item])

    return list(walk(site_map.root))
