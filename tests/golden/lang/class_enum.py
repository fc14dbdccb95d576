# enum.Enum and IntEnum: members, values, lookup by value and by name, iteration, auto().
import enum


class Layout(enum.Enum):
    ROW = 1
    COL = 2
    TILE = enum.auto()


print(Layout.ROW, repr(Layout.COL), Layout(3), Layout["ROW"], Layout.TILE.value, Layout.ROW.name)
print(list(Layout), len(Layout), Layout.ROW is Layout(1), Layout.ROW == Layout.COL)


class Axis(enum.IntEnum):
    PARALLEL = 0
    ARBITRARY = 1


print(Axis.ARBITRARY + 1, Axis.PARALLEL == 0, Axis(1).name, [a.value for a in Axis])
print({Layout.ROW: "r"}[Layout.ROW], isinstance(Layout.ROW, Layout))
# expect: Layout.ROW <Layout.COL: 2> Layout.TILE Layout.ROW 3 ROW
# expect: [<Layout.ROW: 1>, <Layout.COL: 2>, <Layout.TILE: 3>] 3 True False
# expect: 2 True ARBITRARY [0, 1]
# expect: r True
