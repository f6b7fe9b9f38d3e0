"""A State of its own on a redis-server (a module's quiet one: conftest.quiet_redis), as a worker
process has (its own pool and per-process memories), and the server's command counts (INFO
commandstats): what tests/workers/test_seen.py and test_facts.py measure a page's Redis cost with."""
from __future__ import annotations

import redis

from workers.state import State


def own_state(redis_server) -> State:
    """A State of its own (its own pool, memory of URLs and copies of a crawl's facts)."""
    return State(redis.Redis.from_url(redis_server.url, decode_responses=True))


def running_crawl(st: State, url: str) -> str:
    cid = st.create_crawl(url, None, {})
    st.set_state(cid, "running")
    return cid


def command_calls(r) -> dict[str, int]:
    """Calls per command so far, as the server counts them."""
    return {k.split("_", 1)[1].upper(): v["calls"] for k, v in r.info("commandstats").items()}


def calls_delta(before: dict, after: dict) -> dict:
    """The commands called between two `command_calls`, and how often."""
    return {n: c - before.get(n, 0) for n, c in after.items() if c - before.get(n, 0)}
