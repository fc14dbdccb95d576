# einsum: a repeated subscript letter must have the same size in both operands
import jax.numpy as jnp

a = jnp.ones((2, 3))
b = jnp.ones((4, 5))
print(jnp.einsum("ij,jk->ik", a, b))  # error: ValueError: `jnp.einsum` label 'j' has size 3 in
