"""``python -m booktools.translations``: see ``booktools.translations.check.main``."""

import sys

from booktools.translations.check import main

sys.exit(main())
