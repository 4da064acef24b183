"""The HTML report: evidence beyond the Report, run choice, the page itself, the `report` command, and
the page as headless Chromium renders it (Debian's `chromium`, installed by .ci/run; skipped with its
reason where CI is not set and no browser is on PATH, failed in CI)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import struct
import subprocess
import zlib
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from auditor import audit
from auditor.cli import main
from auditor.html import Evidence, choose_runs, render_html, scan
from auditor.lineage import lineage_graph
from auditor.parse import Facts, Parsed, from_object
from receipts import format_utc
from tests.auditor.streams import Stream, later

# ---- helpers -------------------------------------------------------------------------------------


def mixed(tmp_path: Path) -> tuple[Path, Stream, dict[str, str]]:
    """Four healthy runs, then a turn never promoted and a generation that declares nothing."""
    s = Stream()
    s.healthy_cycle()
    stuck, _ = s.store()
    _, turn = s.store()
    promoted, (page,) = s.promote([turn])
    recall = s.recall([(page, 1)])
    s.generate(recall, None)
    kinds = {"stuck": stuck, "undeclared": recall, "promoted": promoted}
    return s.write(tmp_path / "r.jsonl"), s, kinds


def page_for(path: Path, s: Stream, runs: Sequence[str] = ()) -> str:
    return render_html(audit(path, now=later(s)), [(path, False)], runs=runs)


def facts(receipt: dict[str, Any]) -> Facts:
    item = from_object(receipt, None)
    assert isinstance(item, Parsed)
    return item.facts


class Dom(HTMLParser):
    """The elements a test asserts on, with the circles counted per lineage drawing."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.circles: list[int] = []
        self._in_svg = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))
        if tag == "svg" and "lineage" in (dict(attrs).get("class") or "").split():
            self._in_svg = True
            self.circles.append(0)
        elif tag == "circle" and self._in_svg:
            self.circles[-1] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._in_svg = False

    def find(self, tag: str, **wanted: str) -> list[dict[str, str]]:
        """Elements by tag whose attributes hold the wanted words (`class_` means `class`)."""
        names = {k: k.rstrip("_").replace("_", "-") for k in wanted}
        return [
            attrs
            for t, attrs in self.elements
            if t == tag and all(wanted[k] in attrs.get(names[k], "").split() for k in wanted)
        ]


def sections(page: str) -> list[dict[str, str]]:
    return Dom(page).find("section", class_="run")


# ---- evidence ------------------------------------------------------------------------------------


class TestOccupancy:
    def test_a_stored_turn_is_in_stm_until_promoted(self) -> None:
        s = Stream()
        s.store()
        ev = Evidence()
        for r in s.receipts:
            ev.take(facts(r))
        assert ev.occupancy() == {"stm": 1, "mtm": 0, "lpm": 0}

    def test_promotion_moves_turns_to_pages_and_eviction_removes_them(self, tmp_path: Path) -> None:
        s = Stream()
        s.healthy_cycle()  # two turns promoted to two pages
        assert scan([(s.write(tmp_path / "a.jsonl"), False)]).occupancy() == {"stm": 0, "mtm": 2, "lpm": 0}
        s.evict(s.receipts[2]["memoryId"])
        assert scan([(s.write(tmp_path / "b.jsonl"), False)]).occupancy() == {"stm": 0, "mtm": 1, "lpm": 0}

    def test_the_answer_does_not_depend_on_input_order(self, tmp_path: Path) -> None:
        s = Stream()
        s.healthy_cycle()
        s.store()
        s.evict(s.receipts[3]["memoryId"])
        forward = scan([(s.write(tmp_path / "f.jsonl"), False)])
        backward = scan([(s.write(tmp_path / "b.jsonl", reversed(s.lines)), False)])
        assert forward.occupancy() == backward.occupancy() == {"stm": 1, "mtm": 1, "lpm": 0}
        assert forward.last_seen == backward.last_seen

    def test_it_matches_a_real_store(self, tmp_path: Path) -> None:
        import memoryos  # the one place this file needs memoryos: a store to compare against

        db = tmp_path / "agent.db"
        clock = [datetime(2025, 6, 2, 9, 0, tzinfo=UTC)]
        alice = memoryos.Scope(user="alice", assistant="coder")
        bob = memoryos.Scope(user="bob", assistant="coder")
        mem = memoryos.open(db, clock=lambda: clock[0])
        try:
            for index in range(12):  # STM holds 7 turns per scope: alice's overflow moves to MTM
                mem.remember(alice if index % 4 else bob, f"turn number {index} about blyck", role="user")
                clock[0] += timedelta(seconds=20)
            mem.put(alice, "deploy:blyck", "make release", kind="procedure")
            mem.put(alice, "db:blyck", "postgres 16", kind="fact")
            clock[0] += timedelta(seconds=20)
            mem.correct(alice, "deploy:blyck", "make ship")
            mem.forget(alice, "db:blyck")
        finally:
            mem.close()
        conn = sqlite3.connect(db)
        held = dict(conn.execute("SELECT tier, count(DISTINCT memory_id) FROM units GROUP BY tier"))
        conn.close()
        found = scan([(db, True)]).occupancy()
        assert found == {tier: held.get(tier, 0) for tier in ("stm", "mtm", "lpm")}
        assert all(found.values()), found  # every tier holds something, so each is compared


class TestChooseRuns:
    def test_runs_that_are_not_healthy_come_first_then_the_most_recent(self, tmp_path: Path) -> None:
        path, s, runs = mixed(tmp_path)
        report = audit(path, now=later(s))
        chosen = choose_runs(report, scan([(path, False)]), max_runs=4)
        assert chosen[:2] == [runs["stuck"], runs["undeclared"]]  # promotion_missing is worse
        assert chosen[2] == runs["promoted"]  # the most recent healthy run
        assert len(chosen) == 4

    def test_asked_for_runs_are_drawn_as_asked(self, tmp_path: Path) -> None:
        path, s, runs = mixed(tmp_path)
        report = audit(path, now=later(s))
        wanted = [runs["promoted"], runs["stuck"], runs["promoted"]]
        assert choose_runs(report, scan([(path, False)]), wanted) == [runs["promoted"], runs["stuck"]]

    def test_an_unknown_run_is_an_error(self, tmp_path: Path) -> None:
        path, s, _ = mixed(tmp_path)
        report = audit(path, now=later(s))
        with pytest.raises(ValueError, match="no receipts for run"):
            choose_runs(report, scan([(path, False)]), ["0190aaaa-0000-7000-8000-000000000000"])


# ---- the page ------------------------------------------------------------------------------------


class TestPage:
    def test_it_is_self_contained(self, tmp_path: Path) -> None:
        path, s, _ = mixed(tmp_path)
        page = page_for(path, s).lower()
        for reference in ("http://", "https://", "<script", "src=", "<link", "@import", "<img", "<iframe"):
            assert reference not in page, reference

    def test_every_value_is_escaped(self, tmp_path: Path) -> None:
        hostile = tmp_path / 'a<b onmouseover="x">&.jsonl'  # finding reasons quote the path
        hostile.write_bytes(b"not a receipt\n")
        page = render_html(audit(hostile), [(hostile, False)])
        assert "<b onmouseover" not in page
        assert "a&lt;b onmouseover=&quot;x&quot;&gt;&amp;.jsonl" in page

    def test_one_drawing_per_chosen_run_with_the_lineage_graph_drawn_whole(self, tmp_path: Path) -> None:
        path, s, _ = mixed(tmp_path)
        report = audit(path, now=later(s))
        chosen = choose_runs(report, scan([(path, False)]), max_runs=3)
        dom = Dom(render_html(report, [(path, False)], max_runs=3))
        assert [sec["data-run-id"] for sec in dom.find("section", class_="run")] == chosen
        drawings = dom.find("svg", class_="lineage")
        for run_id, svg, circles in zip(chosen, drawings, dom.circles, strict=True):
            graph = lineage_graph([(path, False)], run_id)
            assert int(svg["data-nodes"]) == circles == graph.number_of_nodes()
            assert int(svg["data-edges"]) == graph.number_of_edges()
            assert len(dom.find("line")) >= graph.number_of_edges()

    def test_the_verdict_counts_and_tiers_are_in_data_attributes(self, tmp_path: Path) -> None:
        path, s, _ = mixed(tmp_path)
        report = audit(path, now=later(s))
        dom = Dom(render_html(report, [(path, False)]))
        assert dom.find("div", id="verdict")[0]["data-verdict"] == "promotion_missing"
        counts = {row["data-state"]: int(row["data-count"]) for row in dom.find("tr") if "data-state" in row}
        assert counts == dict(report.counts)
        tiers = {row["data-tier"]: int(row["data-count"]) for row in dom.find("tr") if "data-tier" in row}
        assert tiers == {"stm": 1, "mtm": 3, "lpm": 0}

    def test_a_big_lineage_is_cut_to_the_nodes_nearest_the_run(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr("auditor.html.MAX_DRAWN_NODES", 3)
        path, s, runs = mixed(tmp_path)
        page = page_for(path, s, runs=[runs["promoted"]])
        (svg,) = Dom(page).find("svg", class_="lineage")
        assert svg["data-nodes"] == "3"
        assert int(svg["data-total-nodes"]) > 3
        assert "nodes nearest the run" in page

    def test_the_same_input_gives_the_same_page(self, tmp_path: Path) -> None:
        path, s, _ = mixed(tmp_path)
        assert page_for(path, s) == page_for(path, s)


# ---- the command ---------------------------------------------------------------------------------


def report_argv(path: Path, s: Stream, out: Path, *extra: str, hours: float = 2) -> list[str]:
    return ["report", str(path), "--now", format_utc(later(s, hours)), "--html", str(out), *extra]


class TestReportCommand:
    def test_it_writes_the_page_and_exits_like_check(self, tmp_path: Path) -> None:
        path, s, _ = mixed(tmp_path)
        out = tmp_path / "report.html"
        assert main(report_argv(path, s, out)) == 3
        assert main(["check", str(path), "--now", format_utc(later(s))]) == 3
        assert Dom(out.read_text()).find("div", id="verdict")[0]["data-verdict"] == "promotion_missing"
        assert not list(tmp_path.glob("*.partial"))

    def test_healthy_exits_0_and_waiting_exits_1(self, tmp_path: Path) -> None:
        s = Stream()
        s.healthy_cycle()
        path = s.write(tmp_path / "r.jsonl")
        assert main(report_argv(path, s, tmp_path / "ok.html")) == 0
        s.store()
        path = s.write(tmp_path / "r.jsonl")
        assert main(report_argv(path, s, tmp_path / "wait.html", hours=0.1)) == 1

    def test_runs_and_max_runs_choose_the_drawings(self, tmp_path: Path) -> None:
        path, s, runs = mixed(tmp_path)
        out = tmp_path / "report.html"
        main(report_argv(path, s, out, "--runs", runs["promoted"], runs["undeclared"]))
        drawn = [sec["data-run-id"] for sec in sections(out.read_text())]
        assert drawn == [runs["promoted"], runs["undeclared"]]
        main(report_argv(path, s, out, "--max-runs", "1"))
        assert [sec["data-verdict"] for sec in sections(out.read_text())] == ["promotion_missing"]

    def test_an_unknown_run_exits_2_and_writes_nothing(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        path, s, _ = mixed(tmp_path)
        out = tmp_path / "report.html"
        assert main(report_argv(path, s, out, "--runs", "0190aaaa-0000-7000-8000-000000000000")) == 2
        assert "no receipts for run" in capsys.readouterr().err
        assert not out.exists()

    @pytest.mark.parametrize(
        "argv",
        [
            ["report", "r.jsonl"],  # no --html
            ["report", "--html", "out.html"],  # nothing to audit
            ["report", "r.jsonl", "--html", "out.html", "--max-runs", "0"],
        ],
    )
    def test_usage_errors_exit_2(
        self, argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.chdir(tmp_path)
        Stream().write(tmp_path / "r.jsonl")
        with pytest.raises(SystemExit) as exc:
            raise SystemExit(main(argv))
        assert exc.value.code == 2

    def test_an_unwritable_destination_exits_2(self, tmp_path: Path) -> None:
        path, s, _ = mixed(tmp_path)
        assert main(report_argv(path, s, tmp_path / "missing" / "report.html")) == 2

    def test_help_exits_zero(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit) as exc:
            main(["report", "--help"])
        assert exc.value.code == 0
        assert "--html" in capsys.readouterr().out


# ---- in a browser --------------------------------------------------------------------------------

WINDOW = (1200, 1600)
# Headless, and nothing that reaches the network: the page must render from the file alone.
# --no-sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    f"--window-size={WINDOW[0]},{WINDOW[1]}",
)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}


def chromium() -> str:
    """The browser. Missing, it fails the test in CI (.ci/run installs it, and a skipped browser test
    proves nothing) and skips it, with the reason shown, on a machine without one (a fresh clone)."""
    found = shutil.which("chromium")
    if found is not None:
        return found
    missing = "chromium is not installed: run `apt-get install -y chromium` (.ci/run installs it)"
    if in_ci():
        pytest.fail(missing)
    pytest.skip(f"{missing}; skipped because CI is not set (in CI this fails)")


def browse(page: Path, profile: Path, *action: str) -> bytes:
    done = subprocess.run(
        [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *action, page.as_uri()],
        capture_output=True,
        timeout=20,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return done.stdout


def png_chunks(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at = 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        yield data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        at += 12 + length  # length, type, data, CRC


def png_size(data: bytes) -> tuple[int, int]:
    kind, header = next(png_chunks(data))
    assert kind == b"IHDR"
    width, height = struct.unpack(">II", header[:8])
    return width, height


def png_variety(data: bytes) -> int:
    """Distinct byte values in the (filtered) scanlines: a single-colour page has a handful."""
    return len(set(zlib.decompress(b"".join(body for kind, body in png_chunks(data) if kind == b"IDAT"))))


def shoot(page: Path, tmp_path: Path, name: str) -> bytes:
    shot = tmp_path / f"{name}.png"
    browse(page, tmp_path / f"profile-{name}", f"--screenshot={shot}")
    return shot.read_bytes()


class TestInChromium:
    def test_the_report_renders(self, tmp_path: Path) -> None:
        path, s, runs = mixed(tmp_path)
        out = tmp_path / "report.html"
        assert main(report_argv(path, s, out)) == 3

        dom = Dom(browse(out, tmp_path / "profile-dom", "--dump-dom").decode())
        assert dom.find("div", id="verdict")[0]["data-verdict"] == "promotion_missing"
        assert len([row for row in dom.find("tr") if "data-state" in row]) == 8
        assert len(dom.find("table", id="counts")) == len(dom.find("table", id="tiers")) == 1
        chosen = [sec["data-run-id"] for sec in dom.find("section", class_="run")]
        assert chosen[:2] == [runs["stuck"], runs["undeclared"]]
        assert len(chosen) == 5
        drawings = dom.find("svg", class_="lineage")
        assert len(drawings) == len(chosen)
        for run_id, svg, circles in zip(chosen, drawings, dom.circles, strict=True):
            nodes = lineage_graph([(path, False)], run_id).number_of_nodes()
            assert int(svg["data-nodes"]) == circles == nodes

        blank = tmp_path / "blank.html"
        blank.write_text("<!DOCTYPE html><html><body></body></html>\n")
        control, shot = shoot(blank, tmp_path, "blank"), shoot(out, tmp_path, "report")
        assert png_size(shot) == png_size(control) == WINDOW
        assert len(shot) > 5 * len(control), (len(shot), len(control))
        assert png_variety(shot) > 4 * png_variety(control), (png_variety(shot), png_variety(control))
