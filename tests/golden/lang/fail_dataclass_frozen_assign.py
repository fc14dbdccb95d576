# Assigning to a field of a frozen dataclass raises FrozenInstanceError.
import dataclasses


@dataclasses.dataclass(frozen=True)
class Config:
    block: int


c = Config(8)
c.block = 16  # error: dataclasses.FrozenInstanceError: cannot assign to field 'block'
