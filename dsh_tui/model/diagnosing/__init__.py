"""The index to findings and a verdict: pairing, notes, findings, usage, timing, resume cuts."""
