"""The broker transport after its connection is released: kombu 5.7 restores a channel's
unacked messages at close, and runs the acks still pending, through a client already
released, where it met an AttributeError that stopped the worker ("Unrecoverable error")
at every Redis restart. It must fail as a connection error, which Celery rides out."""
from __future__ import annotations

from pathlib import Path

import pytest
from kombu import Connection, Exchange, Queue
from redis.exceptions import ConnectionError as RedisConnectionError

from workers.broker import TRANSPORT
from workers.redis_server import RedisServer


@pytest.fixture
def released_channel(tmp_path: Path):
    """A channel holding one delivered, unacked message, after Redis went away and the
    connection was collected and its pools dropped, as Celery's consumer does on a lost
    connection."""
    made = []

    def make(transport: str | None):
        server = RedisServer(tmp_path / transport.replace(":", "_") if transport else tmp_path / "stock").start()
        conn = Connection(server.url, transport=transport)
        queue = Queue("broker-test", Exchange("broker-test"), "broker-test")
        with conn.Producer() as producer:
            producer.publish({"n": 1}, exchange=queue.exchange, routing_key="broker-test",
                             declare=[queue], serializer="json")
        channel, got = conn.default_channel, []
        consumer = conn.Consumer(queue, callbacks=[lambda body, m: got.append(m)], accept=["json"], channel=channel)
        consumer.consume()
        conn.drain_events(timeout=5)
        assert len(got) == 1 and len(channel.qos._delivered) == 1
        server.stop()
        conn._do_close_transport()  # what Connection.collect() does: the transport's client released
        channel._disconnect_pools()  # what the channel's close does before it restores
        made.append(channel)
        return channel, got[0]

    yield make
    for channel in made:  # no restore again when the channel is collected: Redis is gone
        channel.qos._on_collect.cancel()


def test_a_released_channel_fails_as_a_connection_error(released_channel):
    channel, message = released_channel(TRANSPORT)
    with pytest.raises(RedisConnectionError):
        channel.qos.restore_unacked()
    with pytest.raises(tuple(channel.connection.connection_errors)):
        message.ack()


def test_kombus_own_transport_fails_there_as_an_attribute_error(released_channel):
    """Why workers/broker.py exists: if a kombu release mends this, the wrapper can go."""
    channel, _ = released_channel(None)
    with pytest.raises(AttributeError):
        channel.qos.restore_unacked()
