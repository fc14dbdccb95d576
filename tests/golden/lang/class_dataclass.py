# dataclasses: generated __init__/__repr__/__eq__, defaults, field(default_factory), frozen, replace, fields.
import dataclasses


@dataclasses.dataclass(frozen=True)
class Config:
    block: int
    name: str = "cfg"

    def __post_init__(self):
        if self.block <= 0:
            raise ValueError("block must be positive")

    @property
    def twice(self):
        return 2 * self.block


c = Config(128)
print(c, c.twice, c == Config(128), c == Config(64), hash(c) == hash(Config(128)))
print(dataclasses.replace(c, block=8), [f.name for f in dataclasses.fields(c)])
try:
    c.block = 3
except dataclasses.FrozenInstanceError as e:
    print("frozen:", e)
try:
    Config(0)
except ValueError as e:
    print("error:", e)


@dataclasses.dataclass
class Stats:
    sizes: list = dataclasses.field(default_factory=list)
    calls: int = 0


s = Stats()
s.sizes.append(4)
s.calls += 1
print(s, dataclasses.asdict(s), dataclasses.is_dataclass(s), Stats() == Stats())
# expect: Config(block=128, name='cfg') 256 True False True
# expect: Config(block=8, name='cfg') ['block', 'name']
# expect: frozen: cannot assign to field 'block'
# expect: error: block must be positive
# expect: Stats(sizes=[4], calls=1) {'sizes': [4], 'calls': 1} True True
