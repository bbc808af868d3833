"""Imports every structure viewer so its renderers are registered; pages import this one module."""

import components.disco_view  # noqa: F401
from components import discourse_tree_view as discourse_tree_view  # registers discourse_selection
from components import trajectory_view as trajectory_view  # registers the trajectory renderer
