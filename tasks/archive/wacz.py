"""WACZ 1.1 packages (a crawl's WARCs, CDXJ index, pages list, datapackage.json) via py-wacz.

ReplayWeb.page and browsertrix-style tooling open a WACZ directly: a zip holding
archive/*.warc.gz, indexes/index.cdx.gz (+ .idx), pages/pages.jsonl and a
datapackage.json with the sha256 of every file (and datapackage-digest.json over it).
The `wacz` package (py-wacz, Webrecorder's own) writes and validates the format; this
module only hands it the WARCs and the page list and keeps its chatter off stdout.

Pages are the posts: `{"url", "title", "ts"}` with `url` the page's captured URL and `ts`
its capture time (WARC-Date), so each entry names a response or revisit in the index.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import zipfile


class WaczError(Exception):
    """py-wacz refused to write or validate a package; the message carries what it said."""


def _run(argv: list[str]) -> tuple[int, str]:
    from wacz.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            rc = main(argv)
        except SystemExit as e:  # argparse
            rc = e.code if isinstance(e.code, int) else 1
        except Exception as e:  # py-wacz raises plain errors on bad input (ValueError, KeyError...)
            print(f"{type(e).__name__}: {e}", file=out)
            rc = 1
    return int(rc or 0), out.getvalue()


def pages_jsonl(pages: list[dict], title: str = "Posts") -> str:
    """pages.jsonl text: the json-pages-1.0 header line, then one line per page (first of a URL kept)."""
    lines = [json.dumps({"format": "json-pages-1.0", "id": "pages", "title": title})]
    seen = set()
    for p in pages:
        if not p.get("url") or p["url"] in seen:
            continue
        seen.add(p["url"])
        item = {"url": p["url"], "title": p.get("title") or p["url"]}
        if p.get("ts"):
            item["ts"] = p["ts"]
        lines.append(json.dumps(item, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def create_wacz(warc_paths: list[str], out_path: str, pages: list[dict], title: str | None = None,
                description: str | None = None, main_url: str | None = None) -> dict:
    """Write `out_path` (a WACZ) from `warc_paths` and `pages`; returns {"path", "pages", "warcs"}.

    Raises WaczError when py-wacz fails. Written to a temporary name first, so a reader
    never sees half a package."""
    if not warc_paths:
        raise WaczError("no WARC file to package")
    names = [os.path.basename(p) for p in warc_paths]
    if len(set(names)) != len(names):
        raise WaczError("two WARC files share a name; a WACZ keeps them side by side in archive/")
    tmp = f"{out_path}.{os.getpid()}.part"  # two writers of one package never share a temp file
    with tempfile.TemporaryDirectory(prefix="blogharvest-wacz-") as d:
        pages_file = os.path.join(d, "pages.jsonl")
        with open(pages_file, "w", encoding="utf-8") as f:
            f.write(pages_jsonl(pages))
        argv = ["create", "-o", tmp, "--pages", pages_file]
        if title:
            argv += ["--title", title]
        if description:
            argv += ["--desc", description]
        if main_url and any(p.get("url") == main_url for p in pages):
            argv += ["--url", main_url]
        rc, said = _run(argv + list(warc_paths))
    if rc != 0 or not os.path.exists(tmp):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise WaczError(f"wacz create failed ({rc}): {said[-2000:]}")
    os.replace(tmp, out_path)
    with zipfile.ZipFile(out_path) as z:
        listed = [json.loads(line) for line in z.read("pages/pages.jsonl").decode("utf-8").splitlines()[1:]
                  if line.strip()] if "pages/pages.jsonl" in z.namelist() else []
    return {"path": out_path, "pages": len(listed), "warcs": names}


def validate_wacz(path: str) -> tuple[bool, str]:
    """(valid, what py-wacz said) for the package at `path`, as `wacz validate -f path`."""
    rc, said = _run(["validate", "-f", path])
    return rc == 0 and "succeeded" in said, said
