"""One fixture per state, and the precedence pairs of DESIGN §5: a later success hides nothing."""

from __future__ import annotations

import itertools
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from auditor import STATES, audit
from auditor.states import RULES, rank
from receipts import uuid7
from tests.auditor.streams import ALICE, BOB, Stream, later


def run_audit(stream: Stream, tmp_path: Path, hours: float = 2, **kwargs: object) -> object:
    return audit(stream.write(tmp_path / "r.jsonl"), now=later(stream, hours), **kwargs)  # type: ignore[arg-type]


class TestEachState:
    def test_a_complete_cycle_is_healthy(self, tmp_path: Path) -> None:
        s = Stream()
        s.healthy_cycle()
        report = audit(s.write(tmp_path / "r.jsonl"), now=later(s))
        assert report.verdict == "healthy"
        assert report.counts["healthy"] == 4
        assert report.runs == ()

    def test_a_turn_inside_its_wait_window_is_waiting(self, tmp_path: Path) -> None:
        s = Stream()
        run, _ = s.store()
        report = audit(s.write(tmp_path / "r.jsonl"), now=s.clock + timedelta(minutes=5))
        assert report.verdict == "waiting"
        assert report.verdict_of(run) == "waiting"

    def test_a_turn_past_its_wait_window_is_promotion_missing(self, tmp_path: Path) -> None:
        s = Stream()
        run, _ = s.store()
        report = audit(s.write(tmp_path / "r.jsonl"), now=later(s))
        assert report.verdict_of(run) == "promotion_missing"
        result = report.run(run)
        assert result is not None
        assert result.findings[0].rule == "promotion.overdue"
        assert result.findings[0].receipt_ids == (s.receipts[0]["receiptId"],)

    def test_a_started_promotion_without_end_past_grace_is_promotion_missing(self, tmp_path: Path) -> None:
        s = Stream()
        _, turn = s.store()
        run, _ = s.promote([turn], status="started", source_present=True)
        assert audit(s.write(tmp_path / "r.jsonl"), now=later(s)).verdict_of(run) == "promotion_missing"
        within = audit(tmp_path / "r.jsonl", now=s.clock + timedelta(minutes=1))
        assert within.verdict_of(run) == "waiting"

    def test_a_released_source_without_committed_destination_is_at_risk(self, tmp_path: Path) -> None:
        s = Stream()
        _, turn = s.store()
        run, _ = s.promote([turn], status="failed", source_present=False)
        assert audit(s.write(tmp_path / "r.jsonl"), now=later(s)).verdict_of(run) == "source_at_risk"

    def test_retrieving_a_superseded_version_is_stale(self, tmp_path: Path) -> None:
        s = Stream()
        _, turn = s.store()
        _, (page,) = s.promote([turn])
        s.correct(page, 2)
        recall = s.recall([(page, 1)])
        s.generate(recall, [f"{page}@1"])
        assert audit(s.write(tmp_path / "r.jsonl"), now=later(s)).verdict_of(recall) == "stale_retrieval"

    def test_a_generation_without_dependencies_is_unverified(self, tmp_path: Path) -> None:
        s = Stream()
        _, turn = s.store()
        _, (page,) = s.promote([turn])
        recall = s.recall([(page, 1)])
        s.generate(recall, None)
        assert (
            audit(s.write(tmp_path / "r.jsonl"), now=later(s)).verdict_of(recall) == "generation_unverified"
        )

    def test_a_generation_on_an_unretrieved_version_is_unverified(self, tmp_path: Path) -> None:
        s = Stream()
        recall = s.recall([])
        s.generate(recall, [f"{uuid7()}@1"])
        assert (
            audit(s.write(tmp_path / "r.jsonl"), now=later(s)).verdict_of(recall) == "generation_unverified"
        )

    def test_receipts_of_one_run_in_two_scopes_are_a_scope_conflict(self, tmp_path: Path) -> None:
        s = Stream()
        _, turn = s.store()
        _, (page,) = s.promote([turn])
        run = uuid7()
        s.emit(ALICE, runId=run, boundary="retrieve", memoryId=page, version=1)
        s.emit(BOB, runId=run, boundary="generate", dependsOnVersion=[f"{page}@1"])
        assert audit(s.write(tmp_path / "r.jsonl"), now=later(s)).verdict_of(run) == "scope_conflict"

    def test_a_retrieval_in_another_scope_is_a_scope_conflict(self, tmp_path: Path) -> None:
        s = Stream()
        _, turn = s.store(ALICE)
        _, (page,) = s.promote([turn], ALICE)
        recall = s.recall([(page, 1)], BOB)
        s.generate(recall, [f"{page}@1"], BOB)
        report = audit(s.write(tmp_path / "r.jsonl"), now=later(s))
        assert report.verdict_of(recall) == "scope_conflict"
        assert report.verdict == "scope_conflict"

    def test_a_promotion_into_another_scope_is_a_scope_conflict_across_runs(self, tmp_path: Path) -> None:
        s = Stream()
        _, turn = s.store(ALICE)
        promotion, _ = s.promote([turn], BOB)
        assert audit(s.write(tmp_path / "r.jsonl"), now=later(s)).verdict_of(promotion) == "scope_conflict"

    def test_missing_evidence_is_uncertain_never_healthy(self, tmp_path: Path) -> None:
        empty = tmp_path / "empty.jsonl"
        empty.write_bytes(b"")
        assert audit(empty).verdict == "uncertain"

    def test_a_seq_gap_is_uncertain(self, tmp_path: Path) -> None:
        s = Stream()
        s.healthy_cycle()
        s.healthy_cycle()
        lines = s.lines[:7] + s.lines[8:]  # the second cycle's first store
        report = audit(s.write(tmp_path / "r.jsonl", lines), now=later(s))
        assert report.verdict == "uncertain"
        gaps = [r for r in report.runs if any(f.rule == "evidence.gap" for f in r.findings)]
        assert [r.verdict for r in gaps] == ["uncertain"]

    def test_a_tampered_receipt_breaks_the_chain(self, tmp_path: Path) -> None:
        s = Stream()
        s.healthy_cycle()
        lines = list(s.lines)
        lines[1] = lines[1].replace(b'"version":1', b'"version":9')
        report = audit(s.write(tmp_path / "r.jsonl", lines), now=later(s))
        assert any(f.rule == "evidence.chain" for r in report.runs for f in r.findings)

    def test_a_wrong_mac_is_uncertain_when_a_key_is_given(self, tmp_path: Path) -> None:
        s = Stream(key=b"k" * 32)
        s.healthy_cycle()
        path = s.write(tmp_path / "r.jsonl")
        assert audit(path, now=later(s), key=b"k" * 32).verdict == "healthy"
        assert audit(path, now=later(s), key=b"x" * 32).verdict == "uncertain"

    def test_evidence_older_than_max_age_is_uncertain(self, tmp_path: Path) -> None:
        s = Stream()
        s.healthy_cycle()
        path = s.write(tmp_path / "r.jsonl")
        assert audit(path, now=later(s, 24), max_age=timedelta(days=7)).verdict == "healthy"
        assert audit(path, now=later(s, 24 * 8), max_age=timedelta(days=7)).verdict == "uncertain"

    def test_every_rule_maps_to_a_state(self) -> None:
        assert {rule.state for rule in RULES.values()} == set(STATES) - {"healthy"}


class TestPrecedence:
    def test_scope_conflict_stays_despite_a_later_healthy_generation(self, tmp_path: Path) -> None:
        s = Stream()
        _, turn = s.store(ALICE)
        _, (page,) = s.promote([turn], ALICE)
        recall = s.recall([(page, 1)], BOB)
        s.generate(recall, [f"{page}@1"], BOB)
        s.healthy_cycle(ALICE)
        report = audit(s.write(tmp_path / "r.jsonl"), now=later(s))
        assert report.verdict_of(recall) == "scope_conflict"
        assert report.verdict == "scope_conflict"

    def test_source_at_risk_stays_despite_later_activity(self, tmp_path: Path) -> None:
        s = Stream()
        _, turn = s.store()
        run = uuid7()
        common: dict[str, Any] = {
            "runId": run,
            "boundary": "stm_to_mtm",
            "fromTier": "stm",
            "toTier": "mtm",
            "version": 1,
        }
        s.emit(**common, memoryId=uuid7(), derivedFrom=[f"{turn}@1"], status="started", sourcePresent=False)
        s.healthy_cycle()
        assert audit(s.write(tmp_path / "r.jsonl"), now=later(s)).verdict_of(run) == "source_at_risk"

    def test_stale_retrieval_stays_despite_a_fluent_generation(self, tmp_path: Path) -> None:
        s = Stream()
        _, turn = s.store()
        _, (page,) = s.promote([turn])
        s.correct(page, 2)
        recall = s.recall([(page, 1)])
        s.generate(recall, [f"{page}@1"])  # declared and retrieved: the generation itself is fine
        s.healthy_cycle()
        report = audit(s.write(tmp_path / "r.jsonl"), now=later(s))
        assert report.verdict_of(recall) == "stale_retrieval"

    def test_source_at_risk_outranks_promotion_missing_in_one_run(self, tmp_path: Path) -> None:
        s = Stream()
        _, a = s.store()
        _, b = s.store()
        run = uuid7()
        common: dict[str, Any] = {
            "runId": run,
            "boundary": "stm_to_mtm",
            "fromTier": "stm",
            "toTier": "mtm",
            "version": 1,
        }
        s.emit(**common, memoryId=uuid7(), derivedFrom=[f"{a}@1"], status="started", sourcePresent=False)
        s.emit(**common, memoryId=uuid7(), derivedFrom=[f"{b}@1"], status="started", sourcePresent=True)
        result = audit(s.write(tmp_path / "r.jsonl"), now=later(s)).run(run)
        assert result is not None
        assert result.verdict == "source_at_risk"
        assert {f.state for f in result.findings} == {"source_at_risk", "promotion_missing"}

    @pytest.mark.parametrize(("high", "low"), list(itertools.pairwise(STATES)))
    def test_the_precedence_table_is_a_strict_order(self, high: str, low: str) -> None:
        assert rank(high) < rank(low)

    def test_uncertain_evidence_does_not_hide_a_conflict(self, tmp_path: Path) -> None:
        s = Stream()
        _, turn = s.store(ALICE)
        promotion, _ = s.promote([turn], BOB)
        path = s.write(tmp_path / "r.jsonl")
        with path.open("ab") as handle:
            handle.write(b"not json\n")
        report = audit(path, now=later(s))
        assert report.verdict == "scope_conflict"
        assert report.verdict_of(promotion) == "scope_conflict"
        assert report.counts["uncertain"] == 1  # the file-level pseudo-run "-"
