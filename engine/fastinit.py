"""A faster ``__init__`` for the engine's hot frozen dataclasses (issue 14: engine speed).

A ``@dataclass(frozen=True, slots=True)`` sets every field in ``__init__`` through
``object.__setattr__(self, "name", value)``: a name lookup per field, about 150 ns each; the
round state, the game state and the observation are built once per card. :func:`fast_init`
replaces that ``__init__`` by one with the same signature (names, order, defaults) that stores
each value through its slot's own descriptor, about twice as fast. The class stays frozen
(assignment still raises ``FrozenInstanceError``); equality, hashing, ``repr``, ``replace``
and pickling are the dataclass's own.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def fast_init(cls: type[T]) -> type[T]:
    """Give the frozen, slotted dataclass ``cls`` the faster ``__init__`` (use as the outer
    decorator, above ``@dataclass``).

    Raises:
        TypeError: for a class it does not apply to: not a frozen slotted dataclass, or with
            ``__post_init__``, ``init=False`` fields or default factories.
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass with slots")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has __post_init__")
    namespace: dict[str, object] = {}
    args: list[str] = []
    body: list[str] = []
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not f.init or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: init=False or default_factory")
        if f.default is dataclasses.MISSING:
            args.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            args.append(f"{f.name}=_default_{f.name}")
        namespace[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
        body.append(f"    _set_{f.name}(self, {f.name})")
    source = f"def __init__(self, {', '.join(args)}):\n" + "\n".join(body or ["    pass"])
    exec(source, namespace)  # generated from the dataclass's own field names only
    init: Any = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
