"""Periodic update crawls, kept in Redis by celery-redbeat (a restarted beat loses nothing)."""
from __future__ import annotations

import re
from datetime import timedelta

from celery.schedules import schedule as every_schedule
from redbeat import RedBeatSchedulerEntry
from redbeat.schedulers import RedBeatConfig, get_redis

from workers.app import app
from workers.state import blog_id

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_every(text: str) -> timedelta:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*", text or "")
    if not m:
        raise ValueError(f"interval {text!r}: use a number and a unit, e.g. 30m, 6h, 1d")
    return timedelta(seconds=float(m.group(1)) * _UNITS[m.group(2)])


def entry_name(url: str) -> str:
    return f"update:{blog_id(url)}"


def add(url: str, every: str) -> str:
    interval = parse_every(every)
    entry = RedBeatSchedulerEntry(entry_name(url), "blogharvest.scheduled_update",
                                  every_schedule(interval), kwargs={"url": url, "every": every}, app=app)
    entry.save()
    return entry.key


def remove(url: str) -> bool:
    try:
        entry = RedBeatSchedulerEntry.from_key(RedBeatConfig(app).key_prefix + entry_name(url), app=app)
    except KeyError:
        return False
    entry.delete()
    return True


def list_all() -> list[dict]:
    r = get_redis(app)
    conf = RedBeatConfig(app)
    prefix = conf.key_prefix
    out = []
    for key in sorted(r.zrange(conf.schedule_key, 0, -1)):
        key = key.decode() if isinstance(key, bytes) else key
        if not key.startswith(prefix + "update:"):
            continue
        try:
            e = RedBeatSchedulerEntry.from_key(key, app=app)
        except KeyError:
            continue
        out.append({"url": e.kwargs.get("url"), "every": e.kwargs.get("every"), "key": key,
                    "next_run": str(e.due_at) if getattr(e, "due_at", None) else None})
    return out
