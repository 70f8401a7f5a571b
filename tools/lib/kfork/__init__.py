"""Helpers behind the fork's tools: work area, kernel tree, KUnit runs."""
