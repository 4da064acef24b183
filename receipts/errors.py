"""Errors raised by the receipt writer. Readers never raise on bad data: they yield findings."""

from __future__ import annotations


class ReceiptError(ValueError):
    """A receipt that must not be written: unknown field, wrong type, or content where none belongs."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"receipt field {field!r}: {problem}")
        self.field = field
        self.problem = problem
