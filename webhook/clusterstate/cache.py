"""`serve --cluster-state`: DeviceClasses, ResourceSlices and DeviceTaintRules kept current by list+watch.

Each kind has a reflector in the manner of client-go's: a paged list gives the objects and a
resourceVersion; a watch from there (kubernetes_asyncio's `Watch`, with bookmarks, which move the
resourceVersion on) applies each event. Each watch asks the API server to end it after
`timeoutSeconds` (client-go's reflector does the same) and reads with a timeout a bit longer, so that a
connection that goes silent (a server or proxy that accepts and then sends nothing) is dropped instead
of keeping the cache stale for ever; a watch the server ended is resumed from the last resourceVersion
seen, without a list. A watch that gets 410 Gone (the resourceVersion was compacted away) lists again;
any other failure, a silent connection included, waits (exponential backoff with jitter, capped) and
lists again. The cache is `synced` only while every reflector is watching after a complete list:
before that, and after a failure until the next list, the admission checks say nothing.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import random
import time
from dataclasses import dataclass

from webhook import logs
from webhook.clusterstate.store import CLASS, KINDS, SLICE, TAINT_RULE, Store

log = logging.getLogger("dra-webhook")

GROUP = "resource.k8s.io"
PLURALS = {CLASS: "deviceclasses", SLICE: "resourceslices", TAINT_RULE: "devicetaintrules"}
PREFERRED = ("v1", "v1beta2", "v1beta1", "v1alpha3")  # the first one served is read
LIST_PAGE = 500
LIST_TIMEOUT = 60.0  # a whole page
CONNECT_TIMEOUT = 30.0  # TCP connect and TLS handshake, at most (never above the read timeout)
SHORT_WATCH_SECONDS = 1.0  # a watch ended this soon with nothing received is a failure (client-go's "very short watch")
BACKOFF_START, BACKOFF_MAX = 0.5, 30.0
DISCOVERY_TIMEOUT = 10.0
WARM_STEP_SECONDS = 0.005  # background evaluation runs at most this long between two turns of the event loop
WARM_IDLE_SECONDS = 0.5
WARM_REQUEST_KEYS = 32


@dataclass(frozen=True)
class Settings:
    kubeconfig: str | None = None
    context: str | None = None
    budget_seconds: float = 0.05  # per admission check
    deny_unsatisfiable: bool = False
    watch_timeout_seconds: int = 300  # the watch's timeoutSeconds: the API server ends it then, and it is resumed

    @property
    def read_timeout_seconds(self) -> float:
        """How long a watch (or a list) may stay silent before it is dropped: a bit longer than the server's own
        end of the watch, which a healthy API server never misses."""
        return self.watch_timeout_seconds + max(5.0, self.watch_timeout_seconds / 10)


class Backoff:
    def __init__(self) -> None:
        self.delay = BACKOFF_START

    def reset(self) -> None:
        self.delay = BACKOFF_START

    async def wait(self) -> None:
        await asyncio.sleep(self.delay * (0.5 + random.random()))
        self.delay = min(self.delay * 2, BACKOFF_MAX)


class Silent(Exception):
    """Nothing came from the API server for the read timeout: the connection is dropped."""


class Reflector:
    def __init__(self, kind: str, store: Store, metrics=None, settings: Settings = Settings()) -> None:
        self.kind = kind
        self.store = store
        self.metrics = metrics
        self.settings = settings
        self.watching = False
        self.version = ""  # of resource.k8s.io read, once discovered
        self.relists = 0
        self.last_event = 0.0  # time.time() of the last list or event
        self.last_heard = 0.0  # time.monotonic() of the last list, event, bookmark or end of a watch
        self.problem = ""  # why it is not watching, after a failure (for /readyz)

    def _timeouts(self) -> tuple:
        read = self.settings.read_timeout_seconds
        return min(CONNECT_TIMEOUT, read), read  # kubernetes_asyncio: (connect, read) of aiohttp

    def _count(self, what: str) -> None:
        if self.metrics is not None:
            self.metrics.cluster_state_event(self.kind, what)

    async def _list(self, api) -> str:
        from kubernetes_asyncio import client

        custom = client.CustomObjectsApi(api)
        objects, token = [], None
        while True:
            try:
                page = await asyncio.wait_for(custom.list_cluster_custom_object(
                    GROUP, self.version, PLURALS[self.kind], limit=LIST_PAGE, _continue=token,
                    _request_timeout=self._timeouts()), LIST_TIMEOUT)
            except asyncio.TimeoutError:
                raise Silent(f"the list got no answer within {LIST_TIMEOUT:g} s (or nothing for "
                             f"{self.settings.read_timeout_seconds:g} s)") from None
            for item in page.get("items") or []:
                if isinstance(item, dict):
                    # A list's items carry no apiVersion (the list does): each is in the version read.
                    item.setdefault("apiVersion", f"{GROUP}/{self.version}")
                    objects.append(item)
            metadata = page.get("metadata") or {}
            token = metadata.get("continue")
            if not token:
                break
        self.store.replace(self.kind, objects)
        del objects
        # What a list brings lives until the next change: out of the collector's full walks (as serve does
        # with everything at start), which would otherwise grow with the cluster and pause reviews.
        gc.collect()
        gc.freeze()
        self.last_event = time.time()
        self.last_heard = time.monotonic()
        return str(metadata.get("resourceVersion") or "")

    async def run(self, api) -> None:
        from kubernetes_asyncio.client.exceptions import ApiException

        backoff = Backoff()
        while True:
            try:
                version = await self._list(api)
                self.watching, self.problem = True, ""
                while True:  # each watch the server ended at its timeoutSeconds resumes where it was
                    version = await self._watch(api, version, backoff)
            except asyncio.CancelledError:
                raise
            except ApiException as error:
                self.watching = False
                if error.status == 410:
                    self.relists += 1
                    self._count("relist")
                    log.info("cluster state: watch expired (410 Gone); listing again",
                             extra=logs.fields(kind=self.kind))
                    continue
                self._count("error")
                self.problem = f"{self.kind}: the API server refused: {error.status} {str(error.reason)[:200]}"
                log.warning("cluster state: the API server refused", extra=logs.fields(
                    kind=self.kind, code=error.status, reason=str(error.reason)[:200]))
                await backoff.wait()
            except Silent as error:
                self.watching = False
                self._count("silent")
                self.problem = f"{self.kind}: {error}; listing again"
                log.warning("cluster state: the API server went silent; listing again",
                            extra=logs.fields(kind=self.kind, error=str(error)))
                await backoff.wait()
            except Exception as error:  # noqa: BLE001 - unreachable, reset, malformed: wait and list again
                self.watching = False
                self._count("error")
                self.problem = f"{self.kind}: {(str(error) or type(error).__name__)[:200]}; retrying"
                log.info("cluster state: connection failed; retrying", extra=logs.fields(
                    kind=self.kind, error=(str(error) or type(error).__name__)[:200]))
                await backoff.wait()

    async def _watch(self, api, version: str, backoff: Backoff) -> str:
        """One watch from `version` until the API server ends it; the resourceVersion to resume from.
        With timeoutSeconds given, kubernetes_asyncio's Watch neither resumes nor retries by itself: an end,
        a 410 and a read timeout all come here."""
        from kubernetes_asyncio import client, watch

        custom = client.CustomObjectsApi(api)
        started, received = time.monotonic(), 0
        stream = watch.Watch()
        try:
            async with stream:
                async for event in stream.stream(custom.list_cluster_custom_object, GROUP, self.version,
                                                 PLURALS[self.kind], resource_version=version,
                                                 allow_watch_bookmarks=True,
                                                 timeout_seconds=self.settings.watch_timeout_seconds,
                                                 _request_timeout=self._timeouts()):
                    self.last_heard = time.monotonic()
                    received += 1
                    self._apply(event)
                    backoff.reset()
        except asyncio.TimeoutError:
            raise Silent(f"the watch was silent: nothing from the API server (an answer, an event, a bookmark, "
                         f"the end of the watch) for {self.settings.read_timeout_seconds:g} s") from None
        self.last_heard = time.monotonic()
        if not received and self.last_heard - started < SHORT_WATCH_SECONDS:
            raise ConnectionError("very short watch: ended at once with nothing received")
        self._count("resumed")
        return str(stream.resource_version or version)

    def _apply(self, event: dict) -> None:
        kind = event.get("type")
        obj = event.get("raw_object") if isinstance(event.get("raw_object"), dict) else event.get("object")
        if kind == "BOOKMARK" or not isinstance(obj, dict):
            self._count("bookmark")
            return
        self.last_event = time.time()
        obj.setdefault("apiVersion", f"{GROUP}/{self.version}")
        if kind in ("ADDED", "MODIFIED"):
            self.store.put(self.kind, obj)
        elif kind == "DELETED":
            self.store.delete(self.kind, str((obj.get("metadata") or {}).get("name") or ""))
        self._count(kind.lower())


class ClusterState:
    """The reflectors and their store; `run()` is a coroutine for the server's event loop."""

    def __init__(self, settings: Settings, store: Store, metrics=None) -> None:
        from webhook.clusterstate.matching import Matching

        self.settings = settings
        self.store = store
        self.matching = Matching(store)
        self.metrics = metrics
        self.reflectors = {kind: Reflector(kind, store, metrics, settings) for kind in KINDS}
        self.problem = "not started"
        if metrics is not None:
            metrics.watch_cluster_state(self)

    @property
    def synced(self) -> bool:
        return all(r.watching for r in self.reflectors.values())

    def age_seconds(self) -> float:
        last = max((r.last_event for r in self.reflectors.values()), default=0.0)
        return time.time() - last if last else -1.0

    def relists(self) -> int:
        return sum(r.relists for r in self.reflectors.values())

    def silence_seconds(self) -> float:
        """Since the stalest watch last heard from the API server (-1 before every kind was listed). A healthy
        watch stays below the read timeout: the server ends it at timeoutSeconds at the latest."""
        heard = [r.last_heard for r in self.reflectors.values() if r.version]
        if not heard or not all(heard):
            return -1.0
        return time.monotonic() - min(heard)

    def why_not_synced(self) -> str:
        """For /readyz: the discovery's problem, else each kind's that is not watching."""
        if self.problem:
            return self.problem
        return "; ".join(r.problem for r in self.reflectors.values() if not r.watching and r.problem)

    async def run(self) -> None:
        from webhook.clusterstate import connect

        backoff = Backoff()
        while True:
            try:
                api = await connect.client(self.settings.kubeconfig, self.settings.context)
                break
            except connect.NoCredentials as error:
                self.problem = str(error)
                log.warning("cluster state: no credentials; retrying", extra=logs.fields(error=str(error)[:300]))
                await backoff.wait()
        try:
            await self._discover(api, backoff)
            self.problem = ""
            await asyncio.gather(self._warm(), *(r.run(api) for r in self.reflectors.values() if r.version))
        finally:
            await api.close()

    async def _warm(self) -> None:
        """Evaluates, in the background, what the checks will ask: every class alone, and every key asked
        before, slice by slice after each watch event. In steps of WARM_STEP_SECONDS between which the event
        loop serves requests, so that a check at admission finds its answer ready."""
        while True:
            busy = False
            if self.synced:
                # Every class alone, and the request keys asked most recently (a bounded number: each costs a
                # pass over the devices, and a client can make up selectors).
                recent = [k for k in reversed(self.matching.results) if k[1]][:WARM_REQUEST_KEYS]
                keys = [(name, ()) for name in list(self.store.classes)] + recent
                for class_name, selectors in keys:
                    if class_name not in self.store.classes:
                        continue
                    while True:
                        result = self.matching.result(class_name, selectors, time.monotonic() + WARM_STEP_SECONDS,
                                                      touch=False)
                        if result.complete:
                            break
                        busy = True
                        await asyncio.sleep(0)  # requests first
            await asyncio.sleep(0 if busy else WARM_IDLE_SECONDS)

    async def _discover(self, api, backoff: Backoff) -> None:
        """Which version of resource.k8s.io each kind is read in (the first served of PREFERRED)."""
        import json

        from webhook.clusterstate.connect import get_raw

        while True:
            try:
                for reflector in self.reflectors.values():
                    reflector.version = ""
                for version in PREFERRED:
                    try:
                        listing = json.loads(await get_raw(api, f"/apis/{GROUP}/{version}", DISCOVERY_TIMEOUT,
                                                           4 * 1024 * 1024))
                    except Exception as error:  # noqa: BLE001
                        if getattr(error, "status", None) == 404:
                            continue
                        raise
                    names = {r.get("name") for r in listing.get("resources") or [] if isinstance(r, dict)}
                    for kind, reflector in self.reflectors.items():
                        if not reflector.version and PLURALS[kind] in names:
                            reflector.version = version
                missing = [k for k, r in self.reflectors.items() if not r.version]
                for kind in missing:  # not served (DeviceTaintRules off): nothing to watch, nothing missing
                    self.reflectors[kind].watching = True
                    log.info("cluster state: not served by the cluster", extra=logs.fields(kind=kind))
                return
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001
                self.problem = f"discovery failed: {(str(error) or type(error).__name__)[:200]}"
                log.info("cluster state: discovery failed; retrying", extra=logs.fields(error=self.problem))
                await backoff.wait()
