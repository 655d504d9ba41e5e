"""The write timeout: a client that takes none of its reply for `seconds` is cut off.

uvicorn waits for a paused transport to drain before each `send` of a reply, for as long as the
client does not read; the reply then stays in memory. Here such a wait is bounded and the
connection aborted (abort, not close: close would keep the unsent bytes until they are read).
Replies are sent in REPLY_CHUNK_BYTES pieces (app.py), so "takes none" means no progress on a
chunk, not a slow reader of a large reply.
"""

from __future__ import annotations

import asyncio
import logging

log = logging.getLogger("dra-webhook")

REPLY_CHUNK_BYTES = 64 * 1024


class WriteTimeout:
    """ASGI middleware around the whole app; relies on uvicorn's h11 request cycle (its `send` is a
    bound method of the cycle, which has the transport and its flow control)."""

    def __init__(self, app, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope, receive, send) -> None:
        cycle = getattr(send, "__self__", None)
        transport, flow = getattr(cycle, "transport", None), getattr(cycle, "flow", None)
        if scope["type"] != "http" or transport is None or flow is None:
            await self.app(scope, receive, send)
            return
        seconds = self.seconds

        async def bounded_send(message) -> None:
            if not flow.write_paused:  # nothing to wait for (almost always): no timer
                await send(message)
                return
            try:
                async with asyncio.timeout(seconds):
                    await send(message)
            except TimeoutError:
                log.info("connection aborted: the client did not read its reply",
                         extra={"fields": {"writeTimeoutSeconds": seconds}})
                transport.abort()  # uvicorn's cycle is now disconnected: later sends do nothing

        await self.app(scope, receive, bounded_send)
