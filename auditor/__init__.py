"""The memoryos auditor: health classification over receipt streams (DESIGN §5).

It reads receipts only, never a store's tiers, and imports nothing of the project but `receipts`,
so a copied receipt file can be audited on a machine with just `receipts` and `auditor` installed.
"""

from auditor.api import DEFAULT_GRACE, audit, parse_duration
from auditor.report import REPORT_SCHEMA, Report, RunResult
from auditor.sources import AuditInputError
from auditor.states import HEALTHY, RULES, STATES, Finding

__all__ = [
    "DEFAULT_GRACE",
    "HEALTHY",
    "REPORT_SCHEMA",
    "RULES",
    "STATES",
    "AuditInputError",
    "Finding",
    "Report",
    "RunResult",
    "audit",
    "parse_duration",
]
