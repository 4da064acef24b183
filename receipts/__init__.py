"""memoryos receipts: the content-free lineage receipt format, its writer pipeline and readers.

This package imports nothing else of the project, so a copied receipt file can be verified on a
machine that has only `receipts` (and `auditor`) installed.
"""

from receipts.canonical import canonical_bytes, compute_mac, link_hash, verify_mac
from receipts.errors import ReceiptError
from receipts.ids import is_uuid, uuid7
from receipts.jsonl import Line, append_jsonl, parse_line, read_jsonl
from receipts.keys import create_key_file, read_key_file
from receipts.model import (
    BOUNDARIES,
    FIELDS,
    SCHEMA,
    STATUSES,
    TERMINAL_STATUSES,
    TIERS,
    ZERO_HASH,
    Problem,
    format_utc,
    is_valid,
    parse_utc,
    problems,
    usable,
)
from receipts.outbox import OUTBOX_TABLE, read_outbox
from receipts.pipeline import ChainHead, Receipt, Sealed, render, seal, seal_all

__all__ = [
    "BOUNDARIES",
    "FIELDS",
    "OUTBOX_TABLE",
    "SCHEMA",
    "STATUSES",
    "TERMINAL_STATUSES",
    "TIERS",
    "ZERO_HASH",
    "ChainHead",
    "Line",
    "Problem",
    "Receipt",
    "ReceiptError",
    "Sealed",
    "append_jsonl",
    "canonical_bytes",
    "compute_mac",
    "create_key_file",
    "format_utc",
    "is_uuid",
    "is_valid",
    "link_hash",
    "parse_line",
    "parse_utc",
    "problems",
    "read_jsonl",
    "read_key_file",
    "read_outbox",
    "render",
    "seal",
    "seal_all",
    "usable",
    "uuid7",
    "verify_mac",
]
