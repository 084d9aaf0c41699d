"""``make audit``: Lighthouse on every page of every edition, mobile and desktop, as one table.

The package's map; ``from booktools.checks import audit`` gives the audit's public names
(``audit.run``, ``audit.options``, ``audit.defaults``, ``audit.TABLE_FILE``, ...), defined in ``site_audit``.

- ``site_audit``: every page of the built site audited, one after the other; the table, and the scores under the bar.
- ``static_host``: the built site served as a static host serves it (gzip, cache headers, 127.0.0.1 only).
- ``lighthouse``: one Lighthouse run, the pinned npm ``lighthouse`` with the system Chromium, read into a result.
"""

from booktools.checks.audit.site_audit import (
    DEFAULT_FAIL_UNDER,
    LANDING,
    SEARCH_PAGE,
    TABLE_FILE,
    defaults,
    no_option_given,
    options,
    run,
    shortfalls,
    site_pages,
    table,
)

__all__ = [
    "DEFAULT_FAIL_UNDER",
    "LANDING",
    "SEARCH_PAGE",
    "TABLE_FILE",
    "defaults",
    "no_option_given",
    "options",
    "run",
    "shortfalls",
    "site_pages",
    "table",
]
