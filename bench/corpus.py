"""The real-blog corpus: every harvest change is measured on it, beside trafilatura.

    python bench/corpus.py [--feed-window 0] [--corpus DIR] [--json FILE] [--keep DIR] [BLOG...]
    python bench/corpus.py check [--corpus DIR] [BLOG...]      where labels and pages disagree
    python bench/corpus.py table [--corpus DIR] [--scores FILE --scores FILE0] > docs/corpus.md

Each blog is a folder (or a `NAME.tar.xz` of one) in the format of ../shared/eval/harness.py:
site/, posts.txt, truth.jsonl, SOURCE.txt, neutral.txt. The corpus is looked for in --corpus,
$BLOGHARVEST_CORPUS, ../shared/corpus, then bench/corpus/. Blogs are run one after another
through the harness (served on loopback as their original host, `blogharvest crawl` as a user
runs it, trafilatura given each post page), and the script prints ours beside trafilatura per
blog and field, then every (blog, field) where ours is more than one point below trafilatura.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import tarfile
import tempfile
from pathlib import Path
from urllib.parse import unquote

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FIELDS = ["found", "precision", "title_exact", "content_f1", "author", "date", "comments"]
KEYS = ["original url", "generator", "cms", "language", "script", "direction", "posts", "comments",
        "comment feed", "comment dates", "feed", "url schemes", "authors", "labels"]


def harness_module(path: Path | None = None):
    path = path or ROOT.parent / "shared" / "eval" / "harness.py"
    spec = importlib.util.spec_from_file_location("harness", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def corpus_dir(given: str | None) -> Path:
    for d in [given, os.environ.get("BLOGHARVEST_CORPUS"), ROOT.parent / "shared" / "corpus", HERE / "corpus"]:
        if d and Path(d).is_dir() and any(_entries(Path(d))):
            return Path(d)
    raise SystemExit("no corpus found: give --corpus DIR (blog folders or NAME.tar.xz files)")


def _entries(d: Path):
    for p in sorted(d.iterdir()):
        if (p / "site").is_dir() or p.name.endswith(".tar.xz"):
            yield p


def blogs(corpus: Path, names: list[str], unpack_to: Path) -> list[Path]:
    """The blog folders, unpacking the archived ones (NAME.tar.xz holds NAME/)."""
    out = []
    for p in _entries(corpus):
        name = p.name[: -len(".tar.xz")] if p.name.endswith(".tar.xz") else p.name
        if names and name not in names:
            continue
        if p.is_dir():
            out.append(p)
            continue
        dest = unpack_to / name
        if not dest.is_dir():
            with tarfile.open(p) as tar:
                tar.extractall(unpack_to, filter="data")
        out.append(dest)
    return out


def source_facts(blog: Path) -> dict:
    text = (blog / "SOURCE.txt").read_text(encoding="utf-8", errors="replace")
    facts = {}
    for line in text.splitlines():
        m = re.match(r"([A-Za-z][A-Za-z ]*?):\s*(.*)$", line)
        if m and m.group(1).strip().lower() not in facts:
            facts[m.group(1).strip().lower()] = m.group(2).strip()
    return facts


# ------------------------------------------------------------------ scoring

def run(a) -> int:
    h = harness_module(a.harness)
    with tempfile.TemporaryDirectory(prefix="corpus-") as tmp:
        chosen = blogs(corpus_dir(a.corpus), a.blogs, Path(tmp))
        if not chosen:
            raise SystemExit("no blog of that name in the corpus")
        results = []
        keep = Path(a.keep) if a.keep else Path(tmp) / "out"
        for b in chosen:
            print(f"... {b.name}", file=sys.stderr, flush=True)
            results.append(h.evaluate(b, a.cmd, ["trafilatura"], a.timeout, a.feed_window, keep))
            results[-1]["ours"]["comments_out"] = _comments_out(b, Path(keep) / f"{b.name}.jsonl")
    print_table(results)
    if a.json:
        Path(a.json).write_text(json.dumps({"feed_window": a.feed_window, "blogs": results}, indent=1,
                                           ensure_ascii=False))
    return 0


def _comments_out(blog: Path, out: Path) -> int | None:
    """Comment records our output holds for a blog whose labels say it has no comment system
    (no "comments" key in truth.jsonl): every one was made from a block that is no comment
    (issue 32). None for a blog with comments."""
    truth = [json.loads(line) for line in (blog / "truth.jsonl").read_text(encoding="utf-8").splitlines() if line]
    if any("comments" in t and t["comments"] for t in truth) or not out.is_file():
        return None
    n = 0
    for line in out.read_text(encoding="utf-8").splitlines():
        try:
            n += len(json.loads(line).get("comments") or [])
        except ValueError:
            continue
    return n


def _cell(v) -> str:
    return "-" if v is None else f"{v:g}"


def totals(results: list[dict], system: str) -> dict:
    """Micro-average over all gold posts (comments over all gold comments)."""
    out = {}
    for f in FIELDS:
        w = (lambda r: r[system].get("comment_n") or 0) if f == "comments" else (lambda r: r[system]["posts"])
        vals = [(r[system].get(f), w(r)) for r in results if r[system].get(f) is not None]
        n = sum(x for _, x in vals)
        out[f] = round(sum(v * x for v, x in vals) / n, 1) if n else None
    return out


def print_table(results: list[dict]) -> None:
    print(f"{'blog':22} {'posts':>5} " + " ".join(f"{f:>17}" for f in FIELDS) + "   rc  secs  reqs")
    print(f"{'':22} {'':>5} " + " ".join(f"{'ours / traf':>17}" for _ in FIELDS))
    worse = []
    for r in results:
        o, t = r["ours"], r["trafilatura"]
        cells = []
        for f in FIELDS:
            tv = t.get(f) if f not in ("found", "precision") else None
            cells.append(f"{_cell(o.get(f)):>8} / {_cell(tv):<6}")
            if tv is not None and (o.get(f) or 0) < tv - 1:
                worse.append(f"{r['blog']}: {f} {_cell(o.get(f))} < trafilatura {_cell(tv)}")
        print(f"{r['blog'][:22]:22} {o['posts']:>5} " + " ".join(cells)
              + f"  {o['rc']!s:>3} {o['seconds']:>5} {o['requests']:>5}")
        if o.get("stderr_tail"):
            print(f"{'':22} stderr: {o['stderr_tail'][-200:]!r}")
    ot, tt = totals(results, "ours"), totals(results, "trafilatura")
    print(f"{'ALL':22} {sum(r['ours']['posts'] for r in results):>5} "
          + " ".join(f"{_cell(ot[f]):>8} / {_cell(tt[f] if f not in ('found', 'precision') else None):<6}"
                     for f in FIELDS))
    below = [f"{r['blog']}: found {_cell(r['ours']['found'])}" for r in results if (r["ours"]["found"] or 0) < 99]
    below += [f"{r['blog']}: precision {_cell(r['ours']['precision'])}" for r in results
              if r["ours"]["precision"] is not None and r["ours"]["precision"] < 99]
    print("\nbelow trafilatura by more than 1 point:" + ("".join(f"\n  {w}" for w in worse) or " none"))
    print("found or precision below 99 %:" + ("".join(f"\n  {w}" for w in below) or " none"))
    made = [f"{r['blog']}: {r['ours']['comments_out']}" for r in results if r["ours"].get("comments_out")]
    print("comments out on blogs without comments:" + ("".join(f"\n  {w}" for w in made) or " none"))


# ------------------------------------------------------------------ label check

def check(a) -> int:
    """Where a blog's labels disagree with its own pages (or its format is wrong)."""
    h = harness_module(a.harness)
    from lxml import html as lh

    problems = 0
    with tempfile.TemporaryDirectory(prefix="corpus-") as tmp:
        for b in blogs(corpus_dir(a.corpus), a.blogs, Path(tmp)):
            notes = check_blog(b, h, lh)
            problems += sum(1 for n in notes if n.startswith("ERROR"))
            print(f"{b.name}: {'ok' if not notes else ''}")
            for n in notes[:a.limit]:
                print(f"  {n}")
            if len(notes) > a.limit:
                print(f"  ... {len(notes) - a.limit} more")
    print(f"\n{problems} errors")
    return 1 if problems else 0


def _page_text(lh, path: Path) -> str:
    """The page's text as a browser shows it (bench/corpus_labelkit.py reads it as the labels do:
    in the encoding a browser reads it in, block elements' words apart)."""
    import corpus_labelkit as kit

    root = kit.load(path)
    for bad in root.xpath("//script|//style|//noscript"):
        bad.drop_tree()
    for el in root.iter():
        if isinstance(el.tag, str) and el.tag in kit.BLOCKS:
            el.tail = " " + (el.tail or "")
    return root.text_content()


def check_blog(b: Path, h, lh) -> list[str]:
    notes = []
    facts = source_facts(b)
    for k in KEYS:
        if k not in facts:
            notes.append(f"ERROR SOURCE.txt has no '{k}:' line")
    posts = (b / "posts.txt").read_text().split()
    truth = h.read_jsonl(b / "truth.jsonl")
    # (truth.jsonl may name a path as its file is named, posts.txt as it is linked: %-encoded, one word a line)
    if [unquote(t.get("path") or "") for t in truth] != [unquote(p) for p in posts]:
        notes.append("ERROR truth.jsonl paths are not posts.txt's, in order")
    if len(set(posts)) != len(posts):
        notes.append("ERROR posts.txt repeats a path")
    ncomments = 0
    for t in truth:
        p = b / "site" / unquote(t["path"])  # posts.txt names a path with spaces as its URL (%20)
        if not p.is_file():
            notes.append(f"ERROR {t['path']}: no such page in site/")
            continue
        page = h.norm_text(_page_text(lh, p)).casefold()
        if not t.get("title"):
            notes.append(f"title empty (a post the page gives no title): {t['path']}")
        elif h.norm_text(t["title"]).casefold() not in page:
            notes.append(f"title not in its page: {t['path']}: {t['title'][:60]!r}")
        gold = h.tokens(t.get("content_text") or "")
        if len(gold) < 3:
            notes.append(f"content under 3 words: {t['path']}")
        else:
            have = set(h.tokens(page))
            recall = sum(1 for w in gold if w in have) / len(gold)
            if recall < 0.95:
                notes.append(f"content words missing from the page ({recall:.0%}): {t['path']}")
        if t.get("published") and not h.parse_day(t["published"]):
            notes.append(f"ERROR {t['path']}: published {t['published']!r} is not YYYY-MM-DD")
        m = re.search(r"/((?:19|20)\d\d)/(\d\d)/", "/" + t["path"])
        d = h.parse_day(t.get("published"))
        if m and d and (d.year, d.month) != (int(m.group(1)), int(m.group(2))) and d.day not in (1, 28, 29, 30, 31):
            notes.append(f"date {t['published']} disagrees with the URL's {m.group(1)}/{m.group(2)}: {t['path']}")
        for c in t.get("comments") or []:
            ncomments += 1
            if not c.get("author"):
                notes.append(f"ERROR {t['path']}: a comment with no author")
            elif h.norm_text(c["author"]).casefold() not in page:
                notes.append(f"comment author not in the page: {t['path']}: {c['author'][:40]!r}")
    declared = facts.get("posts", "").split()[:1]
    if declared and declared[0].isdigit() and int(declared[0]) != len(posts):
        notes.append(f"SOURCE.txt says {declared[0]} posts, posts.txt has {len(posts)}")
    declared = facts.get("comments", "").split()[:1]
    if declared and declared[0].isdigit() and int(declared[0]) != ncomments:
        notes.append(f"SOURCE.txt says {declared[0]} comments, truth.jsonl has {ncomments}")
    return notes


# ------------------------------------------------------------------ docs table

def _source(facts: dict) -> str:
    """Where a blog was taken from: its repository and commit (the first 10 digits)."""
    repo = re.sub(r"^(?:https?://)?(?:www\.)?github\.com/", "", (facts.get("repo") or "?").split()[0])
    commit = re.search(r"\b[0-9a-f]{10,40}\b", facts.get("commit") or "")
    return f"{repo}@{commit.group(0)[:10]}" if commit else repo


def table(a) -> int:
    """docs/corpus.md: the blogs, their spread, and the scores of the runs given."""
    h = harness_module(a.harness)
    runs = [json.loads(Path(s).read_text()) for s in a.scores or []]
    lines = ["# The real-blog corpus", "",
             "Generated by `python bench/corpus.py table`; scores by `python bench/corpus.py --json F`",
             "(with feeds, and `--feed-window 0`: no feed at all). Cells are ours / trafilatura's.", "",
             "| blog | generator | cms | lang | posts | comments | feed | comment feed | schemes | authors | source |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory(prefix="corpus-") as tmp:
        for b in blogs(corpus_dir(a.corpus), a.blogs, Path(tmp)):
            f = source_facts(b)
            truth = h.read_jsonl(b / "truth.jsonl")
            nc = sum(len(t.get("comments") or []) for t in truth)
            first = lambda k: (f.get(k) or "?").split()[0].strip(",;")  # noqa: E731
            gen = re.split(r"\s*[(,;]", f.get("generator") or "?")[0][:32]
            lines.append(f"| {b.name} | {gen} | {first('cms')} | {first('language')} | {len(truth)} | {nc} | "
                         f"{first('feed')} | {first('comment feed')} | {first('url schemes')} | {first('authors')} | "
                         f"{_source(f)} |")
    for run_ in runs:
        res = run_["blogs"]
        lines += ["", f"## Scores, feed window {run_.get('feed_window')}", "",
                  "| blog | " + " | ".join(FIELDS) + " |", "|---" * (len(FIELDS) + 1) + "|"]
        for r in res:
            lines.append(f"| {r['blog']} | " + " | ".join(
                f"{_cell(r['ours'].get(x))} / {_cell(r['trafilatura'].get(x))}" if x not in ("found", "precision")
                else _cell(r["ours"].get(x)) for x in FIELDS) + " |")
        ot, tt = totals(res, "ours"), totals(res, "trafilatura")
        lines.append("| **all** | " + " | ".join(
            f"{_cell(ot[x])} / {_cell(tt[x])}" if x not in ("found", "precision") else _cell(ot[x])
            for x in FIELDS) + " |")
    print("\n".join(lines))
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    verb = argv.pop(0) if argv and argv[0] in ("check", "table") else "run"
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("blogs", nargs="*")
    ap.add_argument("--corpus")
    ap.add_argument("--harness", type=Path)
    if verb == "run":
        ap.add_argument("--feed-window", type=int, default=20)
        ap.add_argument("--cmd", default="blogharvest crawl {url} --out {out}")
        ap.add_argument("--timeout", type=float, default=900)
        ap.add_argument("--json")
        ap.add_argument("--keep", type=Path)
    elif verb == "check":
        ap.add_argument("--limit", type=int, default=8)
    else:
        ap.add_argument("--scores", action="append")
    a = ap.parse_args(argv)
    return {"run": run, "check": check, "table": table}[verb](a)


if __name__ == "__main__":
    sys.exit(main())
