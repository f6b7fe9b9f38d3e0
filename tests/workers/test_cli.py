"""The `blogharvest` command as a user runs it: embedded crawls, Ctrl-C and resume,
the cluster commands (enqueue, status, export) and beat-scheduled update crawls."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import interruptible, score, wait_for
from tests.farm.server import FarmServer
from tests.farm.wordpress import WordPress

CLI = [sys.executable, "-m", "workers.cli"]


def _env(tmp_path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(BLOGHARVEST_ALLOW_PRIVATE="1", BLOGHARVEST_HOME=str(tmp_path / "home"), **extra)
    return env


def _ours(home) -> list[int]:
    """Processes started for a crawl with BLOGHARVEST_HOME=home (its redis-server and workers
    inherit the variable; their titles do not name it)."""
    mark = f"BLOGHARVEST_HOME={home}".encode()
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and int(d.name) != os.getpid():
            try:
                if mark in (d / "environ").read_bytes().split(b"\0"):
                    pids.append(int(d.name))
            except OSError:
                pass
    return pids


def _records(path) -> list[dict]:
    return [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]


def test_embedded_crawl_needs_no_server(tmp_path):
    """No REDIS_URL: a private redis-server and local workers, stopped at the end."""
    blog = WordPress(seed=11, n_posts=30)
    out = tmp_path / "posts.jsonl"
    with FarmServer(blog) as site:
        p = subprocess.run(CLI + ["crawl", site.url, "--out", str(out), "--quiet"],
                           env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    records = _records(out)
    s = score(blog.truth, records)
    assert s["found"] == 100 and s["precision"] == 100 and s["title_exact"] >= 97, s
    # nothing left running: the private redis-server and the workers are gone
    assert _ours(tmp_path / "home") == []


def test_ctrl_c_stops_and_the_same_command_resumes(tmp_path):
    blog = WordPress(seed=12, n_posts=60, per_page=5)
    out = tmp_path / "posts.jsonl"
    env = _env(tmp_path, BLOGHARVEST_LOCAL_DELAY="0.05")  # slow enough to interrupt mid-crawl
    with FarmServer(blog) as site:
        posts = {p.path for p in blog.posts}
        cmd = CLI + ["crawl", site.url, "--out", str(out), "--quiet"]
        first = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 preexec_fn=interruptible)
        wait_for(lambda: sum(n for t, n in site.hits.items() if t in posts) >= 15, 120,
                 "15 post pages fetched")
        first.send_signal(signal.SIGINT)
        _, err = first.communicate(timeout=120)
        assert first.returncode == 130, err
        assert "resume" in err
        fetched_before = sum(n for t, n in site.hits.items() if t in posts)
        assert fetched_before < len(posts), "the crawl ended before it was interrupted"
        second = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert second.returncode == 0, second.stderr[-2000:]
        post_fetches = sum(n for t, n in site.hits.items() if t in posts)
    records = _records(out)
    assert len(records) == len({r["url"] for r in records}) == len(posts)
    assert score(blog.truth, records)["found"] == 100
    # resumed, not restarted: only pages in flight at the interrupt are fetched twice
    assert post_fetches <= len(posts) + 10, post_fetches


def test_enqueue_status_export(workers, redis_server, tmp_path):
    blog = WordPress(seed=13, n_posts=20)
    env = dict(_env(tmp_path), REDIS_URL=redis_server.url)
    with FarmServer(blog) as site:
        p = subprocess.run(CLI + ["enqueue", site.url], env=env, capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        cid = p.stdout.strip()

        def status():
            s = subprocess.run(CLI + ["status", cid, "--json"], env=env, capture_output=True, text=True,
                               timeout=60)
            assert s.returncode == 0, s.stderr
            info = json.loads(s.stdout)
            return info if info["state"] in ("done", "failed", "budget_exhausted") else None

        info = wait_for(status, 180, "status --json to say done")
    assert info["state"] == "done" and info["posts"] == 20 and info["pages"] >= 20
    assert isinstance(info["error_report"], list)
    out = tmp_path / "export.jsonl"
    x = subprocess.run(CLI + ["export", cid, "--out", str(out)], env=env, capture_output=True, text=True,
                       timeout=60)
    assert x.returncode == 0, x.stderr
    assert score(blog.truth, _records(out))["found"] == 100
    missing = subprocess.run(CLI + ["status", "nope-x", "--json"], env=env, capture_output=True, text=True)
    assert missing.returncode == 2


@pytest.mark.flaky(reruns=1)  # beat's 1 s schedule and two crawls on a loaded machine
def test_beat_runs_scheduled_update_crawls(tmp_path):
    """Beat (celery-redbeat) starts the update crawls `schedule add` asked for, on a cluster of
    its own (workers no other test shares)."""
    from tests.workers.cluster import Cluster

    blog = WordPress(seed=14, n_posts=20)
    c = Cluster(tmp_path / "cluster", env={"BLOGHARVEST_LOCAL_DELAY": "0"}).start()
    state = c.state
    env = dict(_env(tmp_path), REDIS_URL=c.url)
    try:
        _beat_scenario(c, state, env, blog)
    finally:
        c.stop()


def _beat_scenario(c, state, env, blog):
    with FarmServer(blog) as site:
        first = c.wait(c.enqueue(site.url), 180)
        assert first["state"] == "done"
        added = {site.origin + p.path for p in site.add_posts(2)}
        add = subprocess.run(CLI + ["schedule", "add", site.url, "--every", "1s"], env=env,
                             capture_output=True, text=True, timeout=60)
        assert add.returncode == 0, add.stderr
        listed = subprocess.run(CLI + ["schedule", "list"], env=env, capture_output=True, text=True, timeout=60)
        assert site.url in listed.stdout
        beat = subprocess.Popen(CLI + ["beat", "--loglevel", "WARNING"], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            def finished_update():
                for cid in state.list_crawls(50):
                    i = state.crawl_info(cid)
                    if i.get("url") == site.url and i.get("kind") == "update" and i["state"] == "done":
                        return cid
                return None

            cid = wait_for(finished_update, 120, "a beat-scheduled update crawl")
        finally:
            beat.terminate()
            beat.wait(timeout=30)
        rm = subprocess.run(CLI + ["schedule", "remove", site.url], env=env, capture_output=True, timeout=60)
        assert rm.returncode == 0
    assert {r["url"] for r in state.crawl_records(cid)} == added
    listed = subprocess.run(CLI + ["schedule", "list"], env=env, capture_output=True, text=True, timeout=60)
    assert site.url not in listed.stdout


def test_crawl_writes_a_whole_warc_and_media(tmp_path):
    """crawl --warc: warcio reads the file whole, every post has a response record and a
    metadata record that refers to it; media files are content-addressed by their sha256."""
    import hashlib

    from warcio.archiveiterator import ArchiveIterator

    blog = WordPress(seed=15, n_posts=12)
    out, warc, media = tmp_path / "posts.jsonl", tmp_path / "blog.warc.gz", tmp_path / "media"
    with FarmServer(blog) as site:
        p = subprocess.run(CLI + ["crawl", site.url, "--out", str(out), "--warc", str(warc), "--quiet"],
                           env=_env(tmp_path, BLOGHARVEST_MEDIA_DIR=str(media)), capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0, p.stderr[-2000:]
        posts = set(site.post_urls())
    index = subprocess.run([sys.executable, "-m", "warcio.cli", "index", str(warc)], capture_output=True,
                           text=True, timeout=120)
    assert index.returncode == 0, index.stderr
    responses, metadata, kinds = {}, [], []
    with open(warc, "rb") as f:
        for rec in ArchiveIterator(f):
            kinds.append(rec.rec_type)
            if rec.rec_type == "response":
                # a page may have several captures: as served, and as a browser fetched it
                responses.setdefault(rec.rec_headers.get_header("WARC-Target-URI"), set()).add(
                    rec.rec_headers.get_header("WARC-Record-ID"))
            elif rec.rec_type == "metadata":
                metadata.append(rec.rec_headers.get_header("WARC-Refers-To"))
    assert kinds[0] == "warcinfo"
    assert posts <= set(responses), posts - set(responses)
    assert len(metadata) >= len(posts) and set(metadata) <= set().union(*responses.values())
    records = _records(out)
    files = [m for r in records for m in r["media"]]
    assert files, "the farm's posts have images"
    for m in files:
        data = (media / m["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == m["sha256"] and len(data) == m["bytes"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_crawl_leaves_no_server_or_worker_behind(tmp_path, sig):
    blog = WordPress(seed=16, n_posts=40)
    env = _env(tmp_path, BLOGHARVEST_LOCAL_DELAY="0.05")
    with FarmServer(blog) as site:
        posts = {p.path for p in blog.posts}
        cli = subprocess.Popen(CLI + ["crawl", site.url, "--quiet"], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        wait_for(lambda: any(t in posts for t in site.hits), 120, "the crawl to reach a post")
        cli.send_signal(sig)
        cli.wait(timeout=120)

        assert _ours(tmp_path / "home") or sig == signal.SIGTERM  # they ran, and outlived a SIGKILL
        wait_for(lambda: not _ours(tmp_path / "home"), 60, "the private redis-server and workers to stop")
    if sig == signal.SIGTERM:
        assert cli.returncode == 130  # stopped as by Ctrl-C: resumable


def test_crawl_report_and_a_missing_browser_said_once(tmp_path):
    """`crawl --report` on a blog with planted faults (a month whose posts fail, no Chromium
    under --js always): the self-contained page sets posts found against the count the blog
    announces, shows the empty month, and says what to do about each fault; a missing
    browser is said once as a warning, not as an error per page."""
    blog = WordPress(seed=12, n_posts=24, archive_counts=True)
    months = list(blog.by_month)
    faults = {p.path: "404" for p in blog.by_month[months[len(months) // 2]]}
    lost = months[len(months) // 2].replace("/", "-")  # "YYYY-MM", as the report writes months
    out, report = tmp_path / "posts.jsonl", tmp_path / "report.html"
    with FarmServer(blog, faults) as site:
        p = subprocess.run(CLI + ["crawl", site.url, "--out", str(out), "--report", str(report), "--js", "always"],
                           env=_env(tmp_path, BLOGHARVEST_CHROMIUM=str(tmp_path / "no-chromium")),
                           capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert len(_records(out)) == 24 - len(faults)
    assert p.stderr.count("rendering is off: no Chromium") == 1, p.stderr[-2000:]
    page = report.read_text(encoding="utf-8")
    facts = json.loads(page.split("id='facts'>", 1)[1].split("</script>", 1)[0])
    assert facts["posts"] == 24 - len(faults) and facts["announced"]["archive widget"] == 24
    assert facts["missing_against"]["archive widget"] == len(faults)
    assert facts["posts_per_month"][lost] == 0
    assert sum(g["count"] for g in facts["errors"] if g["kind"] == "http_status") >= len(faults)
    assert not [g for g in facts["errors"] if g["kind"] == "render"]
    assert "no-browser" in facts["warnings"]
    said = " ".join(facts_advice(facts))
    assert f"{len(faults)} of the 24 posts" in said and lost in said and "no Chromium" in said
    assert [p["phase"] for p in facts["phases"]][:1] == ["discover"] and "traverse" in page


def facts_advice(facts: dict) -> list[str]:
    from tasks.archive.report import advice

    return advice(facts)
