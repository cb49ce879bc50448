"""scrapy-redis: the shared queue's entries written by a codec of Qivrora's, not by its serializer.

Entry: ``PriorityQueueWithCodec``
    Relies on: ``scrapy_redis.queue.PriorityQueue`` writing and reading an entry only through its
    private ``_encode_request(request)`` (``push``) and ``_decode_request(entry)`` (``pop``).
    Tested with: scrapy-redis 0.9.1.
    Test: tests/test_compat.py::test_scrapy_redis_priority_queue_writes_and_reads_through_its_hooks.
    Remove when: scrapy-redis takes a request codec (its ``SCHEDULER_SERIALIZER`` only replaces the
    pickling of ``request.to_dict()``, whose callbacks and bodies a codec of JSON must check).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_redis.queue import PriorityQueue

if TYPE_CHECKING:
    from scrapy import Request


class PriorityQueueWithCodec(PriorityQueue):
    """scrapy-redis's priority queue whose entries are ``encoded`` and ``decoded`` by the subclass."""

    def encoded(self, request: Request) -> bytes:
        raise NotImplementedError

    def decoded(self, entry: bytes) -> Request:
        raise NotImplementedError

    def _encode_request(self, request: Request) -> bytes:
        return self.encoded(request)

    def _decode_request(self, encoded_request: bytes) -> Request:
        return self.decoded(encoded_request)
