"""Sessions beyond one file: roots and their listing, targets, live follow, the browser's presenter, `dsh-tui ls`. Textual-free."""
