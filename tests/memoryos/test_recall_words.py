"""Words that meet: stemming, CJK, drawer keys and kinds, long queries, and stores of 0.1.0."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import memoryos
from memoryos import demo
from memoryos.retrieval import ranking
from memoryos.retrieval.terms import index_terms, language_of, query_words, words
from memoryos.testing import FakeClock

FIXTURES = Path(__file__).parent / "fixtures"


def texts(found: memoryos.Recall) -> list[str]:
    return [h.text for h in found.hits]


class TestStemming:
    @pytest.mark.parametrize(
        ("stored", "query"),
        [
            ("We camped by the river last June", "camping"),
            ("Two events are planned for Friday", "event"),
            ("I am reading Dune again", "read"),
            ("Ich habe zwei Katzen und einen Hund", "Katze"),
            ("Nous avons visité les châteaux de la Loire", "château"),
        ],
    )
    def test_inflections_meet(
        self, mem: memoryos.Memory, alice: memoryos.Scope, stored: str, query: str
    ) -> None:
        mem.remember(alice, stored)
        mem.remember(alice, "an unrelated line about invoices")
        assert texts(mem.recall(alice, query)) == [stored]

    def test_a_document_is_stemmed_in_the_language_its_stopwords_name(self) -> None:
        assert language_of(words("Ich habe zwei Katzen und einen Hund")) == "german"
        assert language_of(words("we camped")) == "english"
        assert language_of(words("Katzen")) == "english"  # no evidence: the default


class TestCJK:
    def test_a_japanese_word_finds_the_sentence_it_is_in(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        mem.remember(alice, "リリースは make release で行います")
        mem.remember(alice, "テストは make test で行います")
        assert texts(mem.recall(alice, "リリース")) == ["リリースは make release で行います"]

    @pytest.mark.parametrize(
        ("stored", "query"),
        [("我们明天去北京开会", "北京"), ("내일 서울에서 회의가 있습니다", "서울"), ("猫が好きです", "猫")],
    )
    def test_chinese_korean_and_single_characters(
        self, mem: memoryos.Memory, alice: memoryos.Scope, stored: str, query: str
    ) -> None:
        mem.remember(alice, stored)
        mem.remember(alice, "something else entirely")
        assert texts(mem.recall(alice, query)) == [stored]

    def test_cjk_runs_are_bigrams_and_split_from_latin_words(self) -> None:
        assert words("makeで行います") == ["make", "で行います"]
        assert query_words("リリース") == [("リリ",), ("リー",), ("ース",)]
        assert {"リリ", "リー", "ース", "リ"} <= set(index_terms("リリースは"))


class TestKeys:
    def test_a_drawer_key_is_found_by_its_words(self, mem: memoryos.Memory, alice: memoryos.Scope) -> None:
        mem.put(alice, "deploy:blyck", "make release (after migrating staging)", kind="procedure")
        mem.remember(alice, "the weather is nice")
        assert [h.key for h in mem.recall(alice, "deploy blyck").hits] == ["deploy:blyck"]
        assert [h.key for h in mem.recall(alice, "procedures").hits] == ["deploy:blyck"]

    def test_the_demos_release_record_ranks_first(self, tmp_path: Path) -> None:
        """The demo's conversation and drawer record: 'how do I release blyck?' finds deploy:blyck first."""
        clock = demo.DemoClock()
        alice = memoryos.Scope(user="alice@example.com", assistant="coder", session="s-1")
        with memoryos.open(tmp_path / "demo.db", clock=clock) as mem:
            for line in demo.SESSIONS[0]:
                role, _, text = line.partition(": ")
                mem.remember(alice, text, role=role)
            mem.put(alice, "deploy:blyck", "make release (after migrating staging)", kind="procedure")
            clock.now += timedelta(days=1)
            mem.maintain()
            for line in demo.SESSIONS[1]:
                role, _, text = line.partition(": ")
                mem.remember(alice, text, role=role)
            assert mem.recall(alice, "how do I release blyck?", k=3).hits[0].key == "deploy:blyck"


class TestQueryWords:
    @given(st.text(max_size=200))
    def test_query_words_are_plain_terms_whatever_the_text(self, query: str) -> None:
        for word in query_words(query):
            assert word and all(term and not any(c.isspace() or c in '"*:()' for c in term) for term in word)

    def test_stopwords_are_dropped_unless_nothing_else_is_left(self) -> None:
        assert [w[0] for w in query_words("how do I release blyck?")] == ["releas", "blyck"]
        assert [w[0] for w in query_words("how do I")] == ["how", "do", "i"]

    def test_fts_syntax_is_just_text(self, mem: memoryos.Memory, alice: memoryos.Scope) -> None:
        mem.remember(alice, "kiwi NEAR(a b) OR *")
        assert len(mem.recall(alice, 'kiwi" OR NEAR(x) * -').hits) == 1


class TestLongQueries:
    def test_a_long_query_keeps_its_rarest_words_not_its_first(
        self, mem: memoryos.Memory, alice: memoryos.Scope
    ) -> None:
        filler = [f"common{i}" for i in range(40)]
        for n in range(3):
            mem.remember(alice, " ".join(filler) + f" line {n}")
        mem.remember(alice, "the zanzibar ferry leaves at noon")
        query = " ".join(filler) + " zanzibar"  # 41 words: the one that matters comes last
        assert "the zanzibar ferry leaves at noon" in texts(mem.recall(alice, query, k=10))

    def test_informative_words_are_the_rarest_known_ones_in_query_order(self) -> None:
        query = [(f"w{i}",) for i in range(40)]
        frequencies = {f"w{i}": 100 - i for i in range(40)}
        frequencies.pop("w3")  # unknown in this scope: adds nothing
        kept = ranking.informative(query, frequencies, limit=32)
        assert len(kept) == 32 and ("w3",) not in kept
        assert kept == [w for w in query if w in kept] and ("w39",) in kept and ("w0",) not in kept


class TestEvidence:
    def test_evidence_lists_matching_turns_best_first_and_is_bounded(self) -> None:
        sources = ("t1", "t2", "t3", "t4", "t5", "t6", "t7")
        scores = {"t4": 2.0, "t2": 3.0, "t6": 2.0, "t5": 1.6, "t7": 1.0}  # t7: under half the best
        assert ranking.evidence(sources, scores, 3) == ("t2", "t4", "t6")
        assert ranking.evidence(sources, scores, 9) == ("t2", "t4", "t6", "t5")
        assert ranking.evidence(sources, {}, 3) == ("t1",)  # a summary in other words: its first turn

    def test_a_hit_whose_turns_are_covered_goes_after_those_with_new_evidence(self) -> None:
        record = ranking.Candidate("r@1", 5.0, ("t1", "t2"))
        pages = [ranking.Candidate("p1@1", 4.0, ("t1",)), ranking.Candidate("p3@1", 3.0, ("t3",))]
        assert [c.ref for c in ranking.spend([*pages, record], 2)] == ["r@1", "p3@1"]
        assert [c.ref for c in ranking.spend([*pages, record], 5)] == ["r@1", "p3@1", "p1@1"]

    def test_a_distilled_record_names_the_turn_that_answers_first(
        self, tmp_path: Path, alice: memoryos.Scope
    ) -> None:
        lines = [
            "I am planning the garden this spring",
            "Tomatoes need a sunny corner of the garden",
            "The garden hose leaks near the tap",
            "Basil grows well next to tomatoes in the garden",
            "I water the garden every evening",
            "The garden shed needs a new roof",
            "Snails ate the lettuce in the garden",
            "The garden fence is painted green",
        ]
        with memoryos.open(tmp_path / "m.db", clock=FakeClock(), heat_threshold=1.0) as mem:
            stored = [mem.remember(alice, line) for line in lines]
            mem.maintain()
            with mem.store.read() as tx:
                records = [
                    u for u in tx.scope_units(None, None, 1000) if u.tier == "lpm" and len(u.source_ids) > 1
                ]
            assert records, "the hot segment was distilled into a record built from several turns"
            sk = mem._scopes(alice)
            plan = mem.retriever.plan(sk, "which garden hose leaks")
            [(_unit, candidate)] = mem.retriever.spend(sk, plan, records[:1], [9.0], 1)
            assert candidate.turns == (stored[2].memory_id,)  # the one turn that answers
            assert candidate.score < 9.0  # it scores as that turn, not as the pooled words of seven
            found = mem.recall(alice, "which garden hose leaks", k=20)
            first = [h.source_ids for h in found.hits][: len(lines)]
            assert first.count((stored[2].memory_id,)) == 1  # evidence before repeats


class TestUpgrade:
    def test_a_store_made_by_the_previous_release_opens_and_recalls(self, tmp_path: Path) -> None:
        for source in FIXTURES.glob("store-0.1.0.db*"):
            shutil.copy(source, tmp_path / source.name)
        # git checks the key out as 0644, which a store refuses: restore it as a backup is restored
        (tmp_path / "store-0.1.0.db.receipt-key").chmod(0o600)
        later = FakeClock(start=datetime(2026, 12, 1, tzinfo=UTC))  # the fixture was written 2026-11-02
        with memoryos.open(tmp_path / "store-0.1.0.db", clock=later) as mem:
            alice = memoryos.Scope(user="alice", assistant="coder")
            assert "リリースは make release で行います" in texts(mem.recall(alice, "リリース"))
            assert texts(mem.recall(alice, "camping")) == ["We camped near the lake last summer"]
            assert mem.recall(alice, "deploy blyck").hits[0].key == "deploy:blyck"
            assert mem.check() == []
