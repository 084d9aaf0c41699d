"""The API reference appendix page: its MyST text, one page per edition, and its place in the contents.

The page is generated, never written by hand: :func:`page` returns its MyST text
(an ``automodule`` directive per framework module), which ``booktools.website.edition_copy``
writes into each edition's renderable copy as ``api.md``, and :func:`with_api_page`
adds it to the edition's table of contents (``booktools.website.jupyter_book``).
Inside Sphinx, ``booktools.website.extension.api_links`` documents it with autodoc
and links each object to its section.
"""

from __future__ import annotations

from typing import Any

from booktools.sources.frameworks import FRAMEWORKS
from booktools.sources.strings import ApiStrings

PAGE = "api"
LABEL = "sec_api"


def page(strings: ApiStrings) -> str:
    """Return the MyST text of the API page of an edition, with its title and introduction."""
    parts = [f"({LABEL})=\n# {strings.title}\n\n{strings.introduction}\n"]
    for framework in FRAMEWORKS:
        module = f"d2l_lib.{framework.module}"
        parts.append(
            f"## {framework.label}: `{module}`\n\n"
            f"```{{eval-rst}}\n.. automodule:: {module}\n   :members:\n   :member-order: bysource\n```\n"
        )
    return "\n".join(parts)


def with_api_page(toc: dict[str, Any]) -> dict[str, Any]:
    """Return an edition's table of contents with the API page as its last chapter."""
    return {**toc, "chapters": [*toc.get("chapters", []), {"file": PAGE}]}
