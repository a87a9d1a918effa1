"""engine.fastinit: the faster __init__ keeps every dataclass behaviour of the hot states."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass

import pytest

from engine.fastinit import fast_init, fast_new
from engine.game import GameState
from engine.settings import Settings


@fast_init
@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 7


def test_signature_defaults_keywords_equality_and_frozen() -> None:
    assert Point(1) == Point(x=1, y=7) == Point(1, 7)
    assert Point(1, 2) != Point(1, 3)
    assert hash(Point(1, 2)) == hash(Point(1, 2))
    assert repr(Point(1, 2)) == "Point(x=1, y=2)"
    assert dataclasses.replace(Point(1, 2), y=5) == Point(1, 5)
    assert pickle.loads(pickle.dumps(Point(3, 4))) == Point(3, 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Point(1).x = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, 2, 3)  # type: ignore[call-arg]


def test_an_instance_is_an_ordinary_instance_of_its_class() -> None:
    p = Point(1, 2)
    assert type(p) is Point
    assert isinstance(p, Point)
    assert (p.x, p.y) == (1, 2)


def test_a_class_with_fast_init_cannot_be_subclassed() -> None:
    with pytest.raises(TypeError):

        class Sub(Point):
            pass


def test_refuses_classes_it_does_not_apply_to() -> None:
    @dataclass(frozen=True)
    class NoSlots:
        x: int

    @dataclass(slots=True)
    class NotFrozen:
        x: int

    @dataclass(frozen=True, slots=True)
    class Factory:
        x: list[int] = dataclasses.field(default_factory=list)

    for cls in (NoSlots, NotFrozen, Factory):
        with pytest.raises(TypeError):
            fast_init(cls)


def test_game_state_is_still_a_frozen_value() -> None:
    game = GameState.new(Settings.from_preset("amsterdam"), 5)
    assert game == GameState.new(Settings.from_preset("amsterdam"), 5)
    assert dataclasses.replace(game, seed=6).seed == 6
    with pytest.raises(dataclasses.FrozenInstanceError):
        game.seed = 3  # type: ignore[misc]


def test_the_maker_builds_what_the_constructor_builds() -> None:
    make = fast_new(Point)
    p = make(1)
    assert type(p) is Point and p == Point(1) and p.y == 7
    assert make(3, y=4) == Point(3, 4)
    assert pickle.loads(pickle.dumps(make(5, 6))) == Point(5, 6)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        make()  # type: ignore[call-arg]


def test_only_a_fast_init_class_has_a_maker() -> None:
    @dataclass(frozen=True, slots=True)
    class Plain:
        x: int

    with pytest.raises(TypeError):
        fast_new(Plain)


def test_a_class_with_a_field_less_slotted_base_and_its_maker() -> None:
    @dataclass(frozen=True, slots=True)
    class Base:
        @property
        def doubled(self) -> int:
            return 2 * self.x  # type: ignore[attr-defined,no-any-return]

    @fast_init
    @dataclass(frozen=True, slots=True)
    class Child(Base):
        x: int

    for c in (Child(4), fast_new(Child)(4)):
        assert type(c) is Child and isinstance(c, Base)
        assert c == Child(4) and c.doubled == 8 and hash(c) == hash(Child(4))
        with pytest.raises(dataclasses.FrozenInstanceError):
            c.x = 5  # type: ignore[misc]


def test_refuses_a_base_class_with_fields() -> None:
    @dataclass(frozen=True, slots=True)
    class Base:
        x: int

    @dataclass(frozen=True, slots=True)
    class Child(Base):
        y: int

    with pytest.raises(TypeError):
        fast_init(Child)


def test_refuses_what_the_maker_could_not_build_alike() -> None:
    """A class whose construction does more than dataclass's own __init__ (or another
    signature) would build differently through the maker: refused."""

    @dataclass(frozen=True, slots=True, kw_only=True)
    class KeywordOnly:
        x: int

    @dataclass(frozen=True, slots=True)
    class OwnNew:
        x: int

        def __new__(cls, *args: object) -> OwnNew:
            return object.__new__(cls)

    @dataclass(frozen=True, slots=True)
    class OwnInit:
        x: int

        def __init__(self, x: int) -> None:
            object.__setattr__(self, "x", abs(x))

    @dataclass(frozen=True, slots=True)
    class Hooked:
        def __init_subclass__(cls, **kwargs: object) -> None:
            pass

    @dataclass(frozen=True, slots=True)
    class HookedChild(Hooked):
        x: int

    class PlainBase:
        __slots__ = ()

    @dataclass(frozen=True, slots=True)
    class PlainChild(PlainBase):
        x: int

    for cls in (KeywordOnly, OwnNew, OwnInit, HookedChild, PlainChild):
        with pytest.raises(TypeError):
            fast_init(cls)
