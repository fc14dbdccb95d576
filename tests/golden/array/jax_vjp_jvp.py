# jax.vjp (pullbacks called more than once, pytree outputs, has_aux) and jax.jvp, against real JAX
import jax
import jax.numpy as jnp

x = jnp.arange(4.0) - 1.0
out, pullback = jax.vjp(lambda a, b: (a * b, {"s": jnp.sum(a) + b}), x, 2.0)
print(out)
print(pullback((jnp.ones(4), {"s": 1.0})))
print(pullback((jnp.arange(4.0), {"s": 0.0})))
out, pullback, aux = jax.vjp(lambda a: (jnp.tanh(a) * 2, a.shape), jnp.zeros(3), has_aux=True)
print(out, aux, pullback(jnp.array([1.0, 2.0, 3.0])))
# An integer primal gets no cotangent through an integer op; a float one does
out, pullback = jax.vjp(lambda a: jnp.sum(a * a), jnp.array([1.0, 2.0]))
print(pullback(jnp.float32(0.5)))

# jax.jvp: the output and its directional derivative
print(jax.jvp(lambda a: jnp.sin(a) * 2, (jnp.arange(3.0),), (jnp.ones(3),)))
print(jax.jvp(lambda a, b: a @ b, (jnp.eye(2), jnp.arange(4.0).reshape(2, 2)),
              (jnp.ones((2, 2)), jnp.zeros((2, 2)))))
print(jax.jvp(lambda p: {"y": p["a"] ** 2, "z": jnp.max(p["b"])},
              ({"a": 3.0, "b": jnp.array([1.0, 5.0, 5.0])},),
              ({"a": 1.0, "b": jnp.array([1.0, 2.0, 4.0])},)))
print(jax.jvp(lambda a: (jnp.exp(a), "aux"), (0.0,), (2.0,), has_aux=True))
# expect: (Array([-2.,  0.,  2.,  4.], dtype=float32), {'s': Array(4., dtype=float32)})
# expect: (Array([3., 3., 3., 3.], dtype=float32), Array(3., dtype=float32, weak_type=True))
# expect: (Array([0., 2., 4., 6.], dtype=float32), Array(8., dtype=float32, weak_type=True))
# expect: [0. 0. 0.] (3,) (Array([2., 4., 6.], dtype=float32),)
# expect: (Array([1., 2.], dtype=float32),)
# expect: (Array([0.       , 1.6829419, 1.8185948], dtype=float32), Array([ 2.       ,  1.0806046, -0.8322937], dtype=float32))
# expect: (Array([[0., 1.],
# expect:        [2., 3.]], dtype=float32), Array([[2., 4.],
# expect:        [2., 4.]], dtype=float32))
# expect: ({'y': Array(9., dtype=float32, weak_type=True), 'z': Array(5., dtype=float32)}, {'y': Array(6., dtype=float32, weak_type=True), 'z': Array(3., dtype=float32)})
# expect: (Array(1., dtype=float32, weak_type=True), Array(2., dtype=float32, weak_type=True), 'aux')
