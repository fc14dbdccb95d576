# jnp.einsum with matmul, transpose, trace-free sums, outer and batch subscripts
import jax.numpy as jnp

a = jnp.arange(6.0).reshape(2, 3)
b = jnp.arange(12.0).reshape(3, 4)
print(jnp.einsum("ij,jk->ik", a, b))  # expect: [[20. 23. 26. 29.]
# expect:  [56. 68. 80. 92.]]
print(jnp.einsum("ij->ji", a))  # expect: [[0. 3.]
# expect:  [1. 4.]
# expect:  [2. 5.]]
print(jnp.einsum("ij->i", a), jnp.einsum("ij->", a))  # expect: [ 3. 12.] 15.0
print(jnp.einsum("i,j->ij", jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0, 5.0])))
# expect: [[ 3.  4.  5.]
# expect:  [ 6.  8. 10.]]
x = jnp.arange(12.0).reshape(2, 2, 3)
print(jnp.einsum("bij,bkj->bik", x, x))  # expect: [[[  5.  14.]
# expect:   [ 14.  50.]]
# expect:
# expect:  [[149. 212.]
# expect:   [212. 302.]]]
print(jnp.einsum("i,i->", a[0], a[1]))  # expect: 14.0
