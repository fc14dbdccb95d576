# Typed PRNG keys (jax.random.key): printing, shape and dtype, indexing and unpacking, key_data /
# wrap_key_data / key_impl, samplers on typed keys, legacy PRNGKey data, arithmetic refused
import jax, jax.numpy as jnp
k = jax.random.key(3)
print(k)
print(repr(k), k.shape, k.dtype, k.ndim, k.size, type(k).__name__)
ks = jax.random.split(k, 3)
print(ks)
print(ks[1], ks.shape, len(ks))
a, b = jax.random.split(k)
print(jax.random.key_data(a), jax.random.key_data(ks).shape)
print(jax.random.uniform(a, (2,)), jax.random.normal(ks[2], (2,)))
print(jax.random.fold_in(k, 5))
w = jax.random.wrap_key_data(jnp.array([1, 2], jnp.uint32))
print(w, jax.random.key_impl(w))
print(str(k.dtype), k.dtype == k.dtype)
print(jax.random.key(0, impl="threefry2x32"))
print(jax.random.PRNGKey(3))
print(jax.random.bits(k, (2,)))
print(jax.random.randint(k, (3,), 0, 10), jax.random.bernoulli(k, 0.5, (3,)), jax.random.permutation(k, 4))
print(jax.random.split(jax.random.PRNGKey(1)))
try:
  k + 1
except Exception as e:
  print(type(e).__name__, e)
print(jax.tree.leaves({"k": k}))
print(jnp.stack([a, b]).shape if False else ks[:2])
# expect: Array((), dtype=key<fry>) overlaying:
# expect: [0 3]
# expect: Array((), dtype=key<fry>) overlaying:
# expect: [0 3] () key<fry> 0 1 PRNGKeyArray
# expect: Array((3,), dtype=key<fry>) overlaying:
# expect: [[3716834203 3481239269]
# expect:  [1946498123 2217676430]
# expect:  [1024511538 2603795180]]
# expect: Array((), dtype=key<fry>) overlaying:
# expect: [1946498123 2217676430] (3,) 3
# expect: [3716834203 3481239269] (3, 2)
# expect: [0.00869536 0.04398847] [-0.58778137 -2.4551458 ]
# expect: Array((), dtype=key<fry>) overlaying:
# expect: [2464363587  131619366]
# expect: Array((), dtype=key<fry>) overlaying:
# expect: [1 2] threefry2x32
# expect: key<fry> True
# expect: Array((), dtype=key<fry>) overlaying:
# expect: [0 0]
# expect: [0 3]
# expect: [ 318053758 4029299397]
# expect: [5 9 5] [ True False False] [0 2 1 3]
# expect: [[ 507451445 1853169794]
# expect:  [1948878966 4237131848]]
# expect: TypeError add does not accept dtypes key<fry>, int32.
# expect: [Array((), dtype=key<fry>) overlaying:
# expect: [0 3]]
# expect: Array((2,), dtype=key<fry>) overlaying:
# expect: [[3716834203 3481239269]
# expect:  [1946498123 2217676430]]
