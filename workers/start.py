"""Sending a crawl's tasks by name: the one way a crawl or a page of it is started,
shared by the task wrappers (workers.crawl), the CLI's follower and beat.

Tasks are sent by their stable names (`blogharvest.*`), fire and forget: progress is
read from Redis state, so no result is stored or awaited.
"""
from __future__ import annotations

import time

from workers.keys import Keys
from workers.runtime import runtime


def start_crawl(app, state, crawl_id: str, url: str, since: str | None, options: dict) -> None:
    """Send the task that runs a created crawl (a result would also subscribe this process
    to its channel until collected). The crawl notes in `state` (its Redis) when (`sent`): only a crawl whose first
    message was sent may be started again by the sweep when it stays queued (workers/orphans.py);
    one that a process drives itself, as tests do, is never taken from it."""
    state.r.hset(Keys(crawl_id).crawl, "sent", repr(time.time()))
    task = "blogharvest.update_crawl" if since else "blogharvest.new_crawl"
    app.send_task(task, kwargs={"url": url, "since": since, "crawl_id": crawl_id, "options": options},
                  ignore_result=True)


def send_page(crawl_id: str, url: str, **options) -> None:
    """A page's task, sent when its host is free (issue 33): a page of a host that politeness
    paces is booked a slot of the host's schedule, and the pacer sends it then if that is
    later (workers/fetch/pacing.py); one that makes no request of its paced host goes behind the
    pages that do (`pacing.BEHIND`). A retry's message (`options`: its countdown) goes as it is."""
    if not options:
        from workers.fetch import pacing

        when = pacing.schedule(runtime(), crawl_id, url)
        if when is False:
            return
        if when is None:
            options = {"priority": pacing.BEHIND}
    send_due(crawl_id, url, **options)


def send_due(crawl_id: str, url: str, **options) -> None:
    """A page's task now, on the render queue when a browser will draw the page."""
    from workers.app import app
    from workers.fetch import rendering  # not at import: the CLI's follower would load the crawl's code

    queue = rendering.queue_for(runtime(), crawl_id, url)
    app.send_task("blogharvest.process_url", args=(crawl_id, url), ignore_result=True,
                  **(dict(options, queue=queue) if queue else options))
