"""Run a deep Python recursion inside a fresh frame-stack chunk (CPython 3.11+ workaround).

CPython 3.11 keeps Python frames in "data stack" chunks of 16 KiB obtained with ``mmap`` and
returned with ``munmap`` as soon as the stack unwinds below a chunk start. A recursive search
that keeps crossing such a boundary (which depends on the caller's stack depth) does an
mmap/munmap pair per crossing: measured ~15,000 page faults and seconds of system time on a
workload that otherwise has none. :func:`call_with_fresh_stack` first enters a frame with
8,192 (never assigned) local variables: it cannot fit in an ordinary chunk, so CPython opens a
128 KiB chunk for it, and the recursion then runs in the ~60 KiB left in that chunk, far from
any boundary. Costs one mmap pair per call; harmless on other Python versions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_N_LOCALS = 8192
_SRC = (
    "def _spacer(fn, args):\n"
    "    if False:\n"
    f"        {' = '.join(f'_s{i}' for i in range(_N_LOCALS))} = None\n"
    "    return fn(*args)\n"
)
_ns: dict[str, Any] = {}
exec(compile(_SRC, "<engine.ai._stack>", "exec"), _ns)
_spacer: Callable[[Callable[..., Any], tuple[Any, ...]], Any] = _ns["_spacer"]


def call_with_fresh_stack(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, run in a fresh, roomy frame-stack chunk (see the module docstring)."""
    result: T = _spacer(fn, args)
    return result
