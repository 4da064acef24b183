"""Pure policies: data plus functions that decide; the store only executes their decisions."""
