"""Typed extraction off the request path: one handler per kind over a bounded snapshot of pages
(memoryos.extraction.handlers, .typed), reconciled with what the scope knows (.reconcile, .write)."""
