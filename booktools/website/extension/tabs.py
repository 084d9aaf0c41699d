"""Framework tabs: each group of framework cells becomes synchronised sphinx-design tabs.

``booktools.website.edition_copy`` marks every framework cell of a page with the class
``d2l-tab-<framework>`` (code cells as the myst-nb class ``tag_d2l-tab-<framework>``).
This transform finds each run of consecutive marked nodes and replaces it by a
sphinx-design tab set with one tab per framework, "PyTorch | JAX | TensorFlow",
whose labels carry the sync group ``framework``. sphinx-design then does the rest:
choosing a tab switches every group of the page, and its ``design-tabs.js`` keeps
the choice in the browser's local storage, so it holds on every page and in every
language edition of the site (they share one origin). The tabs are radio inputs
and labels, usable with the keyboard.

``static/framework-colab.js`` points the page's Colab button at the notebook of
the selected framework.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx_design.shared import create_component

from booktools.sources.frameworks import FRAMEWORKS
from booktools.website.built_pages import TAB_SET_CLASS

SYNC_GROUP = "framework"
CLASS_PREFIXES = ("d2l-tab-", "tag_d2l-tab-")


def frameworks_of(node: nodes.Node) -> list[str]:
    """Return the frameworks a node is marked for (empty for an unmarked node)."""
    if not isinstance(node, nodes.Element):
        return []
    classes: list[str] = node.get("classes", [])
    return [f.name for f in FRAMEWORKS if any(f"{prefix}{f.name}" in classes for prefix in CLASS_PREFIXES)]


def tab_set(members: list[nodes.Element]) -> nodes.Element:
    """Return a sphinx-design tab set holding ``members``, one tab per framework."""
    tabs = create_component("tab-set", classes=["sd-tab-set", TAB_SET_CLASS])
    for index, framework in enumerate(FRAMEWORKS):
        item = create_component("tab-item", classes=["sd-tab-item"], selected=index == 0)
        label = nodes.rubric(framework.label, framework.label, classes=["sd-tab-label"])
        label["sync_id"] = framework.name
        label["sync_group"] = SYNC_GROUP
        content = create_component("tab-content", classes=["sd-tab-content"])
        for member in members:
            if framework.name in frameworks_of(member):
                content += member.deepcopy() if len(frameworks_of(member)) > 1 else member
        item += label
        item += content
        tabs += item
    return tabs


class FrameworkTabs(SphinxTransform):
    """Group consecutive framework-marked nodes into synchronised framework tabs."""

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        """Replace every run of marked sibling nodes by one tab set."""
        for parent in list(self.document.findall(nodes.Element)):
            runs: list[list[nodes.Element]] = []
            current: list[nodes.Element] = []
            for child in parent.children:
                if isinstance(child, nodes.Element) and frameworks_of(child):
                    current.append(child)
                    continue
                if current:
                    runs.append(current)
                    current = []
            if current:
                runs.append(current)
            for run in runs:
                position = parent.index(run[0])
                for member in run:
                    parent.remove(member)
                parent.insert(position, tab_set(run))


def setup_tabs(app: Sphinx) -> None:
    """Register the transform and the Colab-button script."""
    app.add_transform(FrameworkTabs)
    app.add_js_file("framework-colab.js", loading_method="defer")
