"""Rules over every usable receipt (DESIGN §5, issue 13): a receipt that also earns `uncertain` still
takes part in the rules, and precedence picks the run's verdict; findings say what to fix."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from auditor import Report, audit
from auditor.states import worst
from receipts import ZERO_HASH, compute_mac, link_hash, render, uuid7
from tests.auditor.streams import BOB, Stream, later
from tests.auditor.test_properties import PROPS, build, workloads

KEY = bytes(range(32))
Edit = Callable[[dict[str, Any]], None]


def rechain(receipts: Sequence[dict[str, Any]], key: bytes | None = None) -> list[bytes]:
    """Lines for `receipts` with the chain (and MACs) made whole again, as a producer that wrote
    these very receipts would have: the edits under test are then the only thing wrong."""
    link, lines = ZERO_HASH, []
    for original in receipts:
        receipt = {k: v for k, v in original.items() if k != "mac"} | {"prev": link}
        if key is not None:
            receipt["mac"] = compute_mac(key, receipt)
        link = link_hash(receipt)
        lines.append(render(receipt))
    return lines


def audit_lines(lines: Sequence[bytes], stream: Stream, key: bytes | None = None) -> Report:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.jsonl"
        path.write_bytes(b"".join(line + b"\n" for line in lines))
        return audit(path, now=later(stream), key=key)


def edited(stream: Stream, index: int, edit: Edit) -> list[bytes]:
    receipts = [dict(r) for r in stream.receipts]
    edit(receipts[index])
    return rechain(receipts)


class TestAnotherProducer:
    def test_a_version_with_a_space_is_a_version(self, tmp_path: Path) -> None:
        s = Stream()
        s.healthy_cycle()
        for receipt in s.receipts:
            receipt["sourceVersion"] = "memoryos 0.0.0+cfg.3f2a9c01"
        report = audit_lines(rechain(s.receipts), s)
        assert report.verdict == "healthy"
        assert report.source_versions == ("memoryos 0.0.0+cfg.3f2a9c01",)

    def test_a_missing_version_does_not_hide_an_unverified_generation(self) -> None:
        s = Stream()
        _, turn = s.store()
        _, (page,) = s.promote([turn])
        run = s.recall([(page, 1)])
        s.generate(run, [f"{uuid7()}@1"])  # depends on a version the run never retrieved
        for receipt in s.receipts:
            del receipt["sourceVersion"]
        report = audit_lines(rechain(s.receipts), s)
        result = report.run(run)
        assert result is not None and result.verdict == "generation_unverified"
        rules = {f.rule for f in result.findings}
        assert rules == {"generation.unretrieved", "evidence.invalid"}
        invalid = next(f for f in result.findings if f.rule == "evidence.invalid")
        assert "sourceVersion is missing; rule: every receipt carries it" in invalid.reason

    def test_the_finding_names_the_field_what_is_wrong_and_the_rule(self) -> None:
        s = Stream()
        s.healthy_cycle()
        report = audit_lines(edited(s, 0, lambda r: r.update(sourceVersion="memoryos\t0.1.0")), s)
        (result,) = report.runs
        (found,) = result.findings
        assert found.rule == "evidence.invalid" and result.verdict == "uncertain"
        assert "sourceVersion contains a tab at position 9; rule: ^[A-Za-z0-9]" in found.reason

    def test_a_blocking_problem_keeps_the_receipt_out_of_the_rules(self) -> None:
        s = Stream()
        _, turn = s.store()
        run, _ = s.promote([turn], status="failed", source_present=False)  # source_at_risk if read
        report = audit_lines(edited(s, 1, lambda r: r.update(memoryId="page-one")), s)
        assert report.verdict_of(run) == "uncertain"
        result = report.run(run)
        assert result is not None and "memoryId contains 'p' at position 1" in result.findings[0].reason


class TestMacs:
    def test_a_receipt_whose_mac_fails_takes_no_part_in_the_rules(self) -> None:
        s = Stream(key=KEY)
        _, turn = s.store()
        _, (page,) = s.promote([turn])
        run = s.recall([(page, 1)])
        s.generate(run, [f"{page}@1"])
        receipts = [dict(r) for r in s.receipts]
        lines = rechain(receipts, KEY)
        receipts[2]["userScope"] = BOB[0]  # a retrieval in another scope, by someone without the key:
        forged_lines = rechain(receipts, KEY)  # the chain needs no key and is whole again,
        forged_lines[2] = render(orjson.loads(forged_lines[2]) | {"mac": "0" * 64})  # the MAC is not
        assert audit_lines(lines, s, KEY).verdict == "healthy"
        report = audit_lines(forged_lines, s, KEY)
        # Not scope_conflict: the forgery proves nothing, so the generation rests on a retrieval
        # that no trusted receipt shows.
        assert report.verdict_of(run) == "generation_unverified"
        result = report.run(run)
        assert result is not None
        assert {f.rule for f in result.findings} == {"evidence.mac", "generation.unretrieved"}


NOT_READ = ("sourceVersion", "outcomeReceipt", "degraded", "reason")


@PROPS
@given(workloads, st.data())
def test_removing_a_field_no_rule_reads_never_lowers_a_verdict(ops: list[str], data: st.DataObject) -> None:
    """What the remaining evidence proves is what it proved before: the rules never read the field.
    So every run keeps its verdict, and the edited receipt's run adds at most `uncertain`."""
    s = build(ops)
    for receipt in s.receipts:  # give the optional fields a place to be removed from
        if receipt["boundary"] == "generate":
            receipt["outcomeReceipt"] = "test:passed"
        receipt.setdefault("degraded", False)
    before = audit_lines(rechain(s.receipts), s)
    index = data.draw(st.integers(0, len(s.receipts) - 1))
    target = s.receipts[index]
    field = data.draw(st.sampled_from([f for f in NOT_READ if f in target] + ["<add unknown>"]))

    def edit(receipt: dict[str, Any]) -> None:
        if field == "<add unknown>":
            receipt["colour"] = "blue"
        else:
            del receipt[field]

    after = audit_lines(edited(s, index, edit), s)
    uncertain = field in ("sourceVersion", "<add unknown>")
    for run in {r["runId"] for r in s.receipts}:
        expected = before.verdict_of(run)
        if run == target["runId"] and uncertain:
            expected = worst([expected, "uncertain"])
        assert after.verdict_of(run) == expected
