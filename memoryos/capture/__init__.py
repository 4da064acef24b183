"""Capture: the three paths by which the typed drawer learns (DESIGN §7, issue 15).

- explicit: `put()` and MCP `memory_write`, straight into the drawer;
- activity: `observe()` classifies a host's activity event (memoryos.policies.capture);
- reflection: `end_session()`, the idle window and `reflect()` propose what a session taught
  (memoryos.capture.reflect).

The last two only ever propose: a candidate enters the drawer through `approve()`, or through the
explicit auto-approve policy of its kind (`Config.auto_approve_kinds`, empty by default).
"""
