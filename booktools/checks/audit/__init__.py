"""``make audit``: Lighthouse on the book's pages (the landing page, each edition's pages, API and
search; not the decks), mobile and desktop, as one table.

The package's map (it imports nothing: the command line reads ``options`` when the verb is ``audit``).

- ``options``: the audit's options, light enough for ``--help``; ``--fail-under`` defaults to the bar.
- ``site_audit``: the book's pages (``site_pages``) audited one by one; the table, and the scores under the bar.
- ``static_host``: the built site served as a static host serves it (gzip, cache headers, 127.0.0.1 only).
- ``lighthouse``: one Lighthouse run, the pinned npm ``lighthouse`` with the system Chromium, read into a result.
"""
