"""NO_COLOR: meaning from bold and reverse, not from colour, and every text readable.

Under NO_COLOR Textual greys every colour by its luminance (its Monochrome filter): red, the
colour of failures, becomes a dark grey, ~2.4:1 on the panes' near-black (the verdict's message
in the detail pane was the hardest text on the screen), and the tool rows' dark blue 1.5:1. So
each theme colour that would grey below READABLE takes the foreground's colour there: what was
red stays marked by bold and reverse (the VERDICT badge is ``bold reverse``, failure rows bold:
app.tcss ``:nocolor``) and reads at full contrast; disabled text reads as muted text. Backgrounds
are left alone. With colours on nothing changes.
"""

from __future__ import annotations

from textual.color import Color, ColorParseError

READABLE = 4.5  # WCAG AA contrast for body text
FAMILIES = ("error", "warning", "success", "primary", "secondary", "accent", "text")


def luminance(color: Color) -> float:
    """WCAG relative luminance."""
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast_ratio(a: Color, b: Color) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def colourless(style: str) -> str:
    """A Content style without its colours ("bold $error" -> "bold"): under NO_COLOR a part of an
    option keeps the highlight bar's colours, whatever it was coloured."""
    return " ".join(w for w in style.split() if not w.startswith(("$", "#")) and not w.endswith("%"))


def no_color_variables(variables: dict[str, str]) -> dict[str, str]:
    """The theme variables NO_COLOR replaces: the text colours that would grey too dark, as the foreground."""
    foreground = variables.get("foreground", "#e0e0e0")
    ground = Color.parse(variables.get("surface", "#1e1e1e")).monochrome
    out: dict[str, str] = {}
    for name, value in variables.items():
        if name.split("-")[0] not in FAMILIES or "background" in name or name.endswith("-muted"):
            continue  # backgrounds and tints stay as they are
        try:
            color = Color.parse(value)
        except ColorParseError:
            continue  # "auto 60%" and the like: computed against their background
        if color.a == 1 and contrast_ratio(color.monochrome, ground) < READABLE:
            out[name] = foreground
    if "text-muted" in variables:
        out["text-disabled"] = variables["text-muted"]
    return out
