"""Retrieval: index terms, per-scope BM25, recall, context blocks and topics (DESIGN §6, §9)."""
