# jax.nn.logsumexp and jax.scipy.special.logsumexp
import jax
import jax.numpy as jnp

x = jnp.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, 0.0]])
print(jax.nn.logsumexp(x[0]))  # expect: 3.407606
print(jax.nn.logsumexp(x, axis=1))  # expect: [   3.407606 1000.6932  ]
print(jax.scipy.special.logsumexp(x, axis=-1, keepdims=True))  # expect: [[   3.407606]
# expect:  [1000.6932  ]]
print(jax.scipy.special.logsumexp(jnp.zeros(4)))  # expect: 1.3862944
