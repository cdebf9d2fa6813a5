"""Helpers behind :mod:`dsh_tui.demo`: storage encoding, event building, synthetic logs.

Textual-free on purpose: only the standard library, ``zstandard`` and ``orjson``.
"""
