"""The broker transport: kombu's Redis transport, with a closed connection failing as a
connection error.

When Redis goes away, Celery closes the broker connection and kombu's channel close then
restores the unacknowledged messages, and the hub runs the acks still pending, through a
connection whose client is already released. kombu 5.7 meets that as an AttributeError
(`'NoneType' object has no attribute 'hostname'`), which is not a connection error, so the
worker stops with "Unrecoverable error" instead of reconnecting. Raised as Redis's own
ConnectionError, the same step is what it was before 5.7: ignored at close (the messages
stay unacked in Redis, for the visibility timeout and workers/heal.py to hand on), and the
consumer reconnects with its usual retry.
"""
from __future__ import annotations

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous=False):
        if self.connection.client is None:
            raise RedisConnectionError("broker connection already closed")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    Channel = Channel


TRANSPORT = f"{__name__}:Transport"
