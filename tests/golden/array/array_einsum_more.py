# einsum with ellipsis, diagonal, trace and three-way batch contractions
import jax.numpy as jnp

m = jnp.arange(9.0).reshape(3, 3)
print(jnp.einsum("ii->i", m), jnp.einsum("ii", m))  # expect: [0. 4. 8.] 12.0
x = jnp.arange(12.0).reshape(2, 2, 3)
y = jnp.arange(6.0).reshape(3, 2)
print(jnp.einsum("...ij,jk->...ik", x, y))  # expect: [[[10. 13.]
# expect:   [28. 40.]]
# expect:
# expect:  [[46. 67.]
# expect:   [64. 94.]]]
print(jnp.einsum("bhd,bhd->bh", x, x))  # expect: [[  5.  50.]
# expect:  [149. 302.]]
print(jnp.einsum("ij,ij->ij", m, m)[0])  # expect: [0. 1. 4.]
print(jnp.einsum("bij->bji", x).shape)  # expect: (2, 3, 2)
