"""The TensorFlow-only tests: TensorFlow's C++ start-up notes are silenced before it is
imported. The naive reference and the padding mask come from ``tests/library/conftest.py``."""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
