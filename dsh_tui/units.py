"""Byte counts as people read them: ``512 B``, ``1.5 KiB``, ``3.2 GiB`` (powers of 1024)."""

from __future__ import annotations


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            return f"{value:.1f} {unit}"
    return str(n)  # unreachable
