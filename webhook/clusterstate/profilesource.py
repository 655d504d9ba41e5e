"""serve's profile from the cluster: read at start (bounded), then again periodically.

At start the webhook waits at most `start_timeout` for the API server; unreachable, it serves with the
flags' profile (or the default release) and keeps trying in the background, so that it answers every
request on time whatever the API server does. Each reading that gives another profile is handed to the
reviewers (worker processes and the server's own), logged, and counted; a flag that says otherwise than
the cluster is a warning (log) and the `dra_webhook_cluster_profile_disagreements` gauge.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Callable

from webhook import logs
from webhook.clusterstate import discovery
from webhook.profile import Profile, ProfileError

log = logging.getLogger("dra-webhook")

RETRY_SECONDS = 10.0


@dataclass(frozen=True)
class Source:
    kubeconfig: str | None
    context: str | None
    flags: discovery.Flags
    interval_seconds: float = 300.0
    timeout_seconds: float = 5.0


async def read(source: Source) -> tuple[Profile, discovery.ClusterFacts, list[str]]:
    """One reading: raises NoCredentials, ProfileError, or the client's error when unreachable."""
    from webhook.clusterstate import connect

    api = await connect.client(source.kubeconfig, source.context)
    try:
        facts = await asyncio.wait_for(discovery.discover(api, source.timeout_seconds), source.timeout_seconds * 2)
    finally:
        await api.close()
    profile, disagreements = discovery.profile_from(facts, source.flags)
    return profile, facts, disagreements


def read_now(source: Source) -> tuple[Profile, discovery.ClusterFacts, list[str]]:
    """`read` from synchronous code (the command line, serve before it starts serving)."""
    return asyncio.run(read(source))


def describe_failure(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:300]


class Follower:
    """Reads the profile again every interval and applies what changed (`apply(profile)`)."""

    def __init__(self, source: Source, current: Profile, apply: Callable[[Profile], None], metrics,
                 found: bool) -> None:
        self.source = source
        self.current = current
        self.apply = apply
        self.metrics = metrics
        self.found = found  # whether `current` came from the cluster

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.source.interval_seconds if self.found
                                else min(RETRY_SECONDS, self.source.interval_seconds))
            try:
                profile, facts, disagreements = await read(self.source)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - unreachable, forbidden, unknown release: keep the profile
                self.metrics.cluster_profile_read(False)
                log.info("cannot read the profile from the cluster; keeping the current one",
                         extra=logs.fields(error=describe_failure(error), profile=self.current.describe()))
                continue
            self.metrics.cluster_profile_read(True)
            report(facts, disagreements, self.metrics)
            self.found = True
            if profile != self.current:
                log.warning("the cluster's profile changed; reviews use the new one",
                            extra=logs.fields(previous=self.current.describe(), profile=profile.describe()))
                self.current = profile
                self.apply(profile)


def report(facts: discovery.ClusterFacts, disagreements: list[str], metrics) -> None:
    metrics.cluster_profile_disagreements(len(disagreements))
    for problem in facts.problems:
        log.warning("part of the cluster's profile could not be read", extra=logs.fields(problem=problem))
    for disagreement in disagreements:
        log.warning("a flag disagrees with the cluster; the flag wins", extra=logs.fields(disagreement=disagreement))


def at_start(source: Source, fallback: Profile, metrics) -> tuple[Profile, bool]:
    """(the profile to start with, whether it came from the cluster)."""
    try:
        profile, facts, disagreements = read_now(source)
    except ProfileError as error:
        log.warning("the cluster's release has no rules here; serving with the flags' profile",
                    extra=logs.fields(error=describe_failure(error), profile=fallback.describe()))
        metrics.cluster_profile_read(False)
        return fallback, False
    except Exception as error:  # noqa: BLE001 - unreachable or no credentials: serve anyway
        log.warning("cannot read the profile from the cluster yet; serving with the flags' profile and "
                    "trying again", extra=logs.fields(error=describe_failure(error), profile=fallback.describe()))
        metrics.cluster_profile_read(False)
        return fallback, False
    metrics.cluster_profile_read(True)
    report(facts, disagreements, metrics)
    log.info("profile read from the cluster", extra=logs.fields(
        gitVersion=facts.git_version, profile=profile.describe(), flags=discovery.flags_text(profile)))
    return profile, True
