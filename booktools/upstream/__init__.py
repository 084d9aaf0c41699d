"""Every place where ``booktools`` depends on another tool's insides, the release it was written for, and the guard.

Some tools offer no hook for what the book needs: the site overrides templates of two
themes and reaches into Sphinx, docutils and Sphinx extensions; the sources parse
MyST with myst-parser's own parser and read ``_toc.yml`` with sphinx-external-toc's;
the tests replace a method of nbval; the slides run d2lbook's generator. Each such
coupling holds for the release series it was written against (``0.17`` of ``0.17.1``).
``tools.UPSTREAM`` lists each tool with that release and its places (paths under
``booktools/``), and ``guard.problems`` says, in one message format, which installed
releases are of another series. The guards that use it, each before the first coupling
of its tool can run:

- ``booktools.website.jupyter_book.build_editions``: before it starts any ``jupyter-book build``;
- ``booktools.website.extension``: first thing when the extension is imported (before
  its modules import a tool's insides; every handler of the build runs in that process);
- ``booktools.checks.nbval_plugin``: before it replaces nbval's comparison.

A patch release of the same series passes. ``requirements.txt`` (for d2lbook,
``booktools/slides/requirements.txt``) pins the exact releases the outputs were made
with; ``tests/tooling/test_upstream.py`` holds those pins to the series here. An upgrade
to a new series is: read the places against the new release, then change the release
in ``booktools/upstream/tools.py`` and the pin there together.

What counts as a coupling, and so must be a place of its tool:

- an import from a tool listed here, or from a tool of the Sphinx ecosystem (Sphinx,
  docutils, and any distribution that requires one of them: themes, Sphinx extensions,
  Jupyter Book, myst-parser), except the documented extension API in ``tools.PUBLIC_API``
  (``sphinx.application.Sphinx``, ``docutils.nodes``, ...);
- a name or module that starts with ``_`` (``_assets``), of any third-party package;
- a module imported by its name as a string (``importlib.import_module``);
- an override of another's registration (``app.add_node(..., override=True)``);
- a replaced attribute of another package (``IPyNbCell.compare_outputs = ...``);
- a template of ``website/extension/templates/`` that has the name of a theme's own
  template: an override of that theme's template (a theme's nearest,
  ``sphinx-book-theme`` before ``pydata-sphinx-theme`` before Sphinx's ``basic``);
- a handler's priority chosen around another tool's handler (``priority=502``, after
  sphinx-book-theme's 501): its place's ``what`` says ``priority 502``;
- and, listed by hand because no parser sees them: a tool's file, asset or CSS class
  the code names in a string (Font Awesome's ``fontawesome.js``, sphinx-thebe's asset
  names, sphinx-design's ``sd-tab-*`` classes, the theme's stylesheets).

``tests/tooling/test_upstream.py`` finds all but the last kind in every module and
template of ``booktools/`` and fails naming any the places do not list, and any place
that no longer exists.

Why a series, even for the couplings that only name a string (a file, a CSS class, a
script): those are the ones nothing else catches. A renamed import fails at once; a
renamed class or file fails no build, and the page just loses what it did (a folded
solution no longer opens without JavaScript, a script no longer loads on demand). The
tools that such strings tie the book to are on ``0.x`` releases (sphinx-copybutton,
sphinx-togglebutton, sphinx-thebe), where a minor release promises nothing, or are
themes whose markup changes with their minor releases. So every tool keeps its series,
and a minor upgrade costs reading its places and changing two numbers.

Its modules, one job each; they import nothing but the standard library, so that every layer can use them:

- ``tools``: the registry: each tool, its release and its places.
- ``guard``: the check of the installed releases against it, in one message format.
"""
