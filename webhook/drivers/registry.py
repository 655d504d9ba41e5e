"""Which driver profiles are in force: the bundled ones, then the operator's files and directories.

`DriverSource` is what the command line says (plain, hashable, picklable: it travels inside the
Kubernetes `Profile` to worker processes, which load it themselves). `DriverSource.current()` is the
loaded `DriverSet`. A source with a directory is looked at again every `reload_seconds` (the
certificate reload interval when serving): when a file's size or modification time changed (a
ConfigMap update swaps its `..data` link), it is read again; a set that fails to load is logged and
the last good one stays in force, as with certificates. A later file overrides an earlier one for the
same driver name (the operator's over the bundled).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path as FilePath

from webhook.drivers.profiles import MAX_PROFILE_BYTES, DriverProfile, ProfileFileError, read_profile
from webhook.regularfile import read_regular

BUNDLED_DIR = FilePath(__file__).parent / "bundled"
SUFFIXES = (".yaml", ".yml", ".json")
MAX_FILES = 256


@dataclass(frozen=True)
class DriverSet:
    """The profiles by driver name, with the gates in force for each (defaults, then overrides)."""

    profiles: dict = field(default_factory=dict)  # name -> DriverProfile
    gates: dict = field(default_factory=dict)  # name -> {gate: bool}
    files: tuple = ()  # every file loaded, in order

    def profile(self, driver: str) -> DriverProfile | None:
        profile = self.profiles.get(driver)
        if profile is not None and not profile.compiled:
            profile.compile()  # a bundled profile, on first use: an offline run pays only for what it meets
        return profile

    def params(self, driver: str) -> dict:
        return {"featureGates": self.gates.get(driver, {})}


EMPTY = DriverSet()


def parse_driver_gates(text: str) -> tuple[tuple[str, str, bool], ...]:
    """`gpu.nvidia.com:MPSSupport=true,gpu.nvidia.com:TimeSlicingSettings=false`; ValueError when malformed."""
    gates = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        driver, colon, rest = item.partition(":")
        name, eq, value = rest.partition("=")
        if not colon or not eq or not driver.strip() or not name.strip() \
                or value.strip().lower() not in ("true", "false"):
            raise ValueError(f"invalid driver feature gate {item!r}: want driver:Gate=true or driver:Gate=false")
        gates.append((driver.strip(), name.strip(), value.strip().lower() == "true"))
    return tuple(gates)


def _listing(directory: str) -> list[str]:
    """The profile files of a directory, sorted; Kubernetes' ConfigMap bookkeeping (`..data`) skipped."""
    try:
        names = sorted(e.name for e in os.scandir(directory)
                       if not e.name.startswith(".") and e.name.endswith(SUFFIXES))
    except OSError as error:
        raise ProfileFileError([f"{directory}: cannot read the directory: {error.strerror or error}"]) from None
    if len(names) > MAX_FILES:
        raise ProfileFileError([f"{directory}: more than {MAX_FILES} profile files"])
    return [os.path.join(directory, n) for n in names]


@dataclass(frozen=True)
class DriverSource:
    bundled: bool = True
    directories: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    gates: tuple[tuple[str, str, bool], ...] = ()
    reload_seconds: float = 10.0
    warn_without_profile: bool = False  # a config for a driver without a profile gets a warning

    def bundled_paths(self) -> list[str]:
        return _listing(str(BUNDLED_DIR)) if self.bundled else []

    def paths(self) -> list[str]:
        found = self.bundled_paths()
        for directory in self.directories:
            found.extend(_listing(directory))
        found.extend(self.files)
        return found

    def signature(self) -> tuple:
        """What changes when a file is added, removed or rewritten."""
        entries = []
        for path in self.paths():
            try:
                st = os.stat(path)
                entries.append((path, st.st_mtime_ns, st.st_size, st.st_ino))
            except OSError:
                entries.append((path, None, None, None))
        return tuple(entries)

    def load(self) -> DriverSet:
        """Every file read and checked; ProfileFileError with all the problems of all the files."""
        problems: list[str] = []
        profiles: dict[str, DriverProfile] = {}
        paths = self.paths()
        bundled = set(self.bundled_paths())
        for path in paths:
            try:  # a FIFO or a device in the directory must not block a reload (it holds the lock)
                text = read_regular(path, MAX_PROFILE_BYTES).decode("utf-8")
            except (OSError, UnicodeDecodeError) as error:
                problems.append(f"{path}: cannot read: {getattr(error, 'strerror', None) or error}")
                continue
            try:
                profile = read_profile(text, path, compile_rules=path not in bundled)
            except ProfileFileError as error:
                problems.extend(error.problems)
                continue
            for name in profile.drivers:
                profiles[name] = profile
        gates: dict[str, dict[str, bool]] = {name: dict(p.feature_gates) for name, p in profiles.items()}
        for driver, gate, value in self.gates:
            if driver not in profiles:
                problems.append(f"--driver-feature-gates: no profile for driver {driver!r}")
            elif gate not in profiles[driver].feature_gates:
                known = ", ".join(sorted(profiles[driver].feature_gates)) or "none"
                problems.append(f"--driver-feature-gates: driver {driver} has no feature gate {gate!r} "
                                f"(its gates: {known})")
            else:
                gates[driver][gate] = value
        if problems:
            raise ProfileFileError(problems)
        return DriverSet(profiles, gates, tuple(paths))

    def current(self) -> DriverSet:
        """The set in force, reloaded when the files changed (see the module's docstring)."""
        return _STATE.current(self)


class _State:
    """Per process: the loaded set of each source, when it was last looked at, and its files' signature."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded: dict[DriverSource, tuple[DriverSet, tuple, float]] = {}

    def current(self, source: DriverSource) -> DriverSet:
        entry = self._loaded.get(source)
        now = time.monotonic()
        if entry is not None and (not source.directories and not source.files or now - entry[2] < source.reload_seconds):
            return entry[0]
        with self._lock:
            entry = self._loaded.get(source)
            if entry is not None and now - entry[2] < source.reload_seconds:
                return entry[0]
            signature = source.signature()
            if entry is not None and signature == entry[1]:
                self._loaded[source] = (entry[0], signature, now)
                return entry[0]
            try:
                loaded = source.load()
            except ProfileFileError as error:
                if entry is None:
                    raise
                logging.getLogger("dra-webhook").error("driver profiles not reloaded, keeping the previous ones: %s",
                                                       error)
                self._loaded[source] = (entry[0], signature, now)
                return entry[0]
            if entry is not None:
                logging.getLogger("dra-webhook").info("driver profiles reloaded: %d files", len(loaded.files))
            self._loaded[source] = (loaded, signature, now)
            return loaded


_STATE = _State()
