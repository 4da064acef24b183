"""Small units: durations, the Bloom filter, the report schema, and the pure judgement functions."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

import pytest

from auditor import REPORT_SCHEMA, audit, external, parse_duration
from auditor.bloom import Bloom
from auditor.judge import Promotions, Times, generation_findings, promotion_findings, stale_against
from receipts import uuid7
from tests.auditor.streams import T0, Stream, later

TIMES = Times(now="2025-01-01T12:00:00.000000Z", grace_cut="2025-01-01T11:55:00.000000Z", expiry_cut=None)


class TestDurations:
    @pytest.mark.parametrize(
        ("text", "seconds"), [("30s", 30), ("5m", 300), ("2h", 7200), ("7d", 604800), ("1d12h", 129600)]
    )
    def test_durations_parse(self, text: str, seconds: int) -> None:
        assert parse_duration(text) == timedelta(seconds=seconds)

    @pytest.mark.parametrize("text", ["", "7", "d7", "5 m", "1.5h", "-1d"])
    def test_anything_else_is_refused(self, text: str) -> None:
        with pytest.raises(ValueError, match="not a duration"):
            parse_duration(text)


class TestBloom:
    def test_added_ids_are_always_found(self) -> None:
        bloom = Bloom(capacity=64)
        ids = [f"id-{n}" for n in range(1000)]  # past capacity: the filter grows
        for item in ids:
            bloom.add(item)
        assert all(item in bloom for item in ids)

    def test_false_positives_are_rare(self) -> None:
        bloom = Bloom(capacity=1000)
        for n in range(1000):
            bloom.add(f"in-{n}")
        assert sum(f"out-{n}" in bloom for n in range(10_000)) < 100

    @pytest.mark.parametrize("total", [0, 1, 63, 64, 65, 5000, 20_000])
    def test_queued_adds_set_the_bits_of_adding_one_by_one(self, total: int) -> None:
        """`add` queues and hashes in bulk; the bits (what a saved state holds) and the growth points
        must be those of the plain one-id-at-a-time filter, however looks-ups interleave."""
        rnd = random.Random(total)
        ids = [str(uuid7()) for _ in range(total)]
        bloom = Bloom(capacity=64)
        for item in ids:
            bloom.add(item)
            if rnd.random() < 0.01:
                assert item in bloom  # a look-up hashes the queue in first
        assert bloom.dump() == _one_by_one(ids, capacity=64)
        assert all(item in bloom for item in ids)


def _one_by_one(ids: list[str], capacity: int) -> tuple[list[bytes], int, int]:
    """The reference filter: each id hashed into the newest filter as it comes (bloom's format)."""
    from auditor.bloom import _HIGH, _LOW, _hash

    filters: list[list[int]] = [[0] * (capacity // 16)]
    count, total = 0, capacity
    for item in ids:
        if count >= total:
            filters.append([0] * (total // 16))
            total *= 2
        count += 1
        h = _hash(item)
        blocks = filters[-1]
        blocks[(h >> 24) % len(blocks)] |= _LOW[h & 0xFFF] | _HIGH[(h >> 12) & 0xFFF]
    return [b"".join(b.to_bytes(64, "little") for b in f) for f in filters], count, total


class TestJudge:
    def test_a_released_and_covered_source_is_fine(self) -> None:
        promo = Promotions(released={"t@1": "r1"}, covered={"t@1"}, terminal={"p"})
        assert promotion_findings(promo, TIMES) == []

    def test_a_released_source_without_cover_is_at_risk(self) -> None:
        (found,) = promotion_findings(Promotions(released={"t@1": "r1"}), TIMES)
        assert (found.state, found.receipt_ids) == ("source_at_risk", ("r1",))

    def test_a_started_promotion_inside_grace_is_waiting(self) -> None:
        promo = Promotions(opened=[("p", "2025-01-01T11:58:00.000000Z", None, "r1", True)])
        assert [f.state for f in promotion_findings(promo, TIMES)] == ["waiting"]

    def test_generation_rules(self) -> None:
        assert [f.rule for f in generation_findings([("g", None)], set())] == ["generation.undeclared"]
        assert [f.rule for f in generation_findings([("g", ["a@1"])], {"b@1"})] == ["generation.unretrieved"]
        assert generation_findings([("g", ["a@1"])], {"a@1"}) == []

    def test_staleness_needs_a_newer_version_committed_before(self) -> None:
        newer = {2: "2025-01-01T10:00:00.000000Z"}
        assert stale_against(newer, 1, "2025-01-01T11:00:00.000000Z") == (2, "2025-01-01T10:00:00.000000Z")
        assert stale_against(newer, 1, "2025-01-01T09:00:00.000000Z") is None
        assert stale_against(newer, 2, "2025-01-01T11:00:00.000000Z") is None


def test_the_report_json_schema_is_stable(tmp_path: Path) -> None:
    s = Stream()
    s.store()
    data = audit(s.write(tmp_path / "r.jsonl"), now=later(s)).to_dict()
    assert list(data) == [
        "schema",
        "verdict",
        "now",
        "counts",
        "receipts",
        "lines",
        "duplicates",
        "window",
        "sourceVersions",
        "mode",
        "runs",
        "macs",
        "notes",
    ]
    assert data["schema"] == REPORT_SCHEMA
    assert list(data["macs"]) == ["verified", "keySource", "reason"]
    (run,) = data["runs"]
    assert list(run) == ["runId", "verdict", "findings"]
    assert list(run["findings"][0]) == ["rule", "state", "receiptIds", "reason"]


def test_an_unordered_input_is_sorted_on_disk_then_streamed(tmp_path: Path) -> None:
    s = Stream()
    s.healthy_cycle()
    s.healthy_cycle()
    path = s.write(tmp_path / "r.jsonl", reversed(s.lines))
    report = audit(path, now=later(s))
    assert report.mode == "sorted"
    assert report.verdict == "healthy"


def test_a_chain_whose_seq_and_time_disagree_is_audited_exactly(tmp_path: Path) -> None:
    s = Stream()
    s.healthy_cycle()
    s.emit(at=T0 - timedelta(hours=1), runId=uuid7(), boundary="retrieve")  # seq after, time before
    report = audit(s.write(tmp_path / "r.jsonl"), now=later(s))
    assert report.mode == "exact"
    assert report.verdict == "healthy"


def test_the_sorted_pass_spills_sorted_runs_and_merges_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(external, "CHUNK", 3)  # several runs on disk even for a small input
    s = Stream()
    runs = [*s.healthy_cycle(), *s.healthy_cycle()]
    _, turn = s.store()
    hung, _ = s.promote([turn], status="started", source_present=True)
    shuffled = list(s.lines)
    random.Random(3).shuffle(shuffled)
    path = s.write(tmp_path / "r.jsonl", [*shuffled, b"not json"])
    report = audit(path, now=later(s))
    ordered = audit(s.write(tmp_path / "o.jsonl", [*s.lines, b"not json"]), now=later(s))
    assert report.mode == "sorted" and ordered.mode == "streaming"
    assert {r.run_id: r.verdict for r in report.runs} == {r.run_id: r.verdict for r in ordered.runs}
    assert report.verdict_of(hung) == "promotion_missing" and report.counts == ordered.counts
    assert all(report.verdict_of(run) == "healthy" for run in runs)
