"""What the engine derives for a state with a nested public part and a View subclass of its own
(analyser.engine.derive): the nested part's copy and the subclass's own attributes."""

from dataclasses import dataclass, field

from analyser.engine import derive
from analyser.engine.components import face_up, seat_zones


@dataclass(frozen=True)
class Token:
    name: str


@dataclass(slots=True)
class Table:
    round: int = 1
    tokens: list[Token] = face_up()


@dataclass(slots=True)
class Nested:
    table: Table
    hands: list[list[int]] = seat_zones()


class OwnView(derive.View):
    __slots__ = ("table",)

    def __init__(self, state, seat):
        derive.View.__init__(self, state, seat)
        self.table = state.table

    @property
    def hands_sizes(self):
        return ["own"] * len(self._state.hands)


def test_a_nested_dataclass_is_copied_by_its_own_generated_copy():
    s = Nested(Table(2, [Token("a"), Token("b")]), hands=[[1, 2], [3]])
    t = derive.clone(s)
    assert t == s and t.table is not s.table and t.table.tokens is not s.table.tokens
    assert t.table.tokens[0] is s.table.tokens[0]  # immutable cards are shared, not deep-copied
    t.table.tokens.append(Token("c"))
    t.table.round = 3
    assert s.table == Table(2, [Token("a"), Token("b")])


def test_a_view_subclass_keeps_its_own_attributes():
    s = Nested(Table(), hands=[[1, 2], [3]])
    v = derive.view(s, 1, OwnView)
    assert v.hands_sizes == ["own", "own"]  # the subclass's, not the derived one
    assert v.table is s.table and v.hand == [3]
    plain = derive.view(s, 1)
    assert plain.hands_sizes == [2, 1] and plain.table is s.table
