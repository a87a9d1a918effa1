"""A faster ``__init__`` for the engine's hot frozen dataclasses (engine speed).

A ``@dataclass(frozen=True, slots=True)`` sets every field in ``__init__`` through
``object.__setattr__(self, "name", value)``: a name lookup and a call per field, about 70 ns
each; the round state, the game state and the observation (26 fields) are built once per card.
:func:`fast_init` replaces that ``__init__`` by one with the same signature (names, order,
defaults) that briefly gives the new instance a plain twin class with the very same slots and
base (so CPython lays them out identically and allows the ``__class__`` assignment),
stores the fields with ordinary attribute stores, and gives it its class back: about 2.5 times
as fast. The object is an ordinary instance of the class afterwards; the class stays frozen
(assignment raises ``FrozenInstanceError``); equality, hashing, ``repr``, ``replace`` and
pickling are the dataclass's own. Decoration checks that every field reads back what was
stored, and a subclass of such a class is refused (its layout could differ).

:func:`fast_new` gives the same class's *maker*: a plain function with the constructor's
signature that builds the instance as the twin and gives it its class once. Calling a class
goes through ``type.__call__`` and the C slot that calls a Python ``__init__`` (an argument
tuple, a frame that is not inlined) and swaps the class twice; the maker is an ordinary Python
call (CPython inlines its frame) with one swap: about 2,400 fewer machine instructions for a
14-field state (``valgrind --tool=lackey``, CPython 3.11), a tenth of a random round. The hot
paths (a state per card, an observation per decision) build through their class's maker.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")

_MAKERS: dict[type, Callable[..., Any]] = {}
"""The maker of every class given :func:`fast_init`."""


def fast_init(cls: type[T]) -> type[T]:
    """Give the frozen, slotted dataclass ``cls`` the faster ``__init__`` (use as the outer
    decorator, above ``@dataclass``).

    Raises:
        TypeError: for a class it does not apply to: not a frozen slotted dataclass with the
            ``__init__`` dataclass wrote, or with ``__post_init__``, its own ``__new__``, a
            base class other than one field-less slotted dataclass without
            ``__init_subclass__`` (such as :class:`engine.events.Event`; it sees the twin as a
            subclass), ``init=False`` or keyword-only fields, or default factories.
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass with slots")
    # dataclass compiles the __init__ it writes from a string: a hand-written one has a file.
    code = getattr(cls.__init__, "__code__", None)
    if not params.init or code is None or code.co_filename != "<string>":
        raise TypeError(f"{cls.__name__}: its __init__ is not the one dataclass wrote")
    if hasattr(cls, "__post_init__") or cls.__new__ is not object.__new__:
        raise TypeError(f"{cls.__name__} has __post_init__ or its own __new__")
    if len(cls.__bases__) != 1:
        raise TypeError(f"{cls.__name__} has several base classes")
    (base,) = cls.__bases__
    if base is not object and (
        not dataclasses.is_dataclass(base)
        or base.__bases__ != (object,)
        or base.__dict__.get("__slots__") != ()
        or "__init_subclass__" in base.__dict__
        or dataclasses.fields(base)
    ):
        raise TypeError(
            f"{cls.__name__}: the base class must be a field-less slotted dataclass"
            " without __init_subclass__"
        )
    names = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    if tuple(cls.__dict__["__slots__"]) != names:
        raise TypeError(f"{cls.__name__}: slots differ from the fields")
    # The twin has the class's base (an object's class may only change to a class of the same
    # layout) and the plain attribute store of ``object``, not the base's frozen one.
    twin = type(
        f"_{cls.__name__}Fields",
        (base,),
        {"__slots__": names, "__setattr__": object.__setattr__, "__delattr__": object.__delattr__},
    )
    namespace: dict[str, object] = {"_cls": cls, "_twin": twin, "_setattr": object.__setattr__}
    args: list[str] = []
    body = ["    _setattr(self, '__class__', _twin)"]
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not f.init or f.kw_only or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: init=False, keyword-only or a factory")
        if f.default is dataclasses.MISSING:
            args.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            args.append(f"{f.name}=_default_{f.name}")
        body.append(f"    self.{f.name} = {f.name}")
    body.append("    self.__class__ = _cls")
    source = f"def __init__(self, {', '.join(args)}):\n" + "\n".join(body)
    stores = "\n".join(body[1:-1])
    source += (
        f"\ndef _make({', '.join(args)}):\n    self = _new(_twin)\n{stores}\n"
        "    self.__class__ = _cls\n    return self\n"
    )
    namespace["_new"] = object.__new__
    exec(source, namespace)  # generated from the dataclass's own field names only
    init: Any = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    make: Any = namespace["_make"]
    make.__qualname__ = f"{cls.__qualname__}._make"
    make.__doc__ = f"A new {cls.__name__} (the constructor's arguments; :func:`fast_new`)."
    probe = object.__new__(cls)
    values = [object() for _ in names]
    init(probe, *values)
    made = make(*values)
    pairs = tuple(zip(names, values, strict=True))
    if any(
        type(p) is not cls or any(getattr(p, n) is not v for n, v in pairs) for p in (probe, made)
    ):
        raise TypeError(f"{cls.__name__}: the twin's layout differs")  # pragma: no cover
    _MAKERS[cls] = make
    cls.__init__ = init  # type: ignore[method-assign]
    cls.__init_subclass__ = classmethod(_no_subclass)  # type: ignore[assignment]
    return cls


def fast_new(cls: Callable[P, T]) -> Callable[P, T]:
    """The maker of ``cls`` (a class given :func:`fast_init`): ``fast_new(C)(*args)`` equals
    ``C(*args)``, built faster (module docstring). Bind it once, at module level.

    Raises:
        TypeError: when ``cls`` was not given :func:`fast_init`.
    """
    make = _MAKERS.get(cls)  # type: ignore[call-overload]
    if make is None:
        raise TypeError(f"{getattr(cls, '__name__', cls)} has no fast_init")
    return make  # type: ignore[no-any-return]


def _no_subclass(cls: type, /, **kwargs: object) -> None:
    raise TypeError(f"{cls.__name__}: a class with fast_init cannot be subclassed")
