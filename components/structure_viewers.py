"""Imports every structure viewer so its renderers are registered; pages import this one module."""

import components.disco_view  # noqa: F401
