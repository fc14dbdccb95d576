# shapes (3,) and (4,) do not broadcast
import jax.numpy as jnp

x = jnp.arange(3)
y = jnp.arange(4)
print(x + y)  # error: TypeError: add got incompatible shapes for broadcasting: (3,), (4,).
# (Operands of different ranks fail earlier, when jax.numpy pads them to one rank:
# ValueError: Incompatible shapes for broadcasting: shapes=[(2, 3), (4,)].)
