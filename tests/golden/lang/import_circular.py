# Circular imports: the second module sees the first partially initialised, as in CPython.
import _circ_a  # expect: b sees a without `first`: True
import _circ_b

print(_circ_a.both(), _circ_b.from_b())  # expect: ab ab
print(_circ_b._circ_a is _circ_a)  # expect: True
