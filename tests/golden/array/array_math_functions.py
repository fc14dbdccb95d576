# exp, exp2, log, log1p, sqrt, tanh, sin, cos on float32
import jax.numpy as jnp

x = jnp.array([0.0, 0.5, 1.0, 2.0])
print(jnp.exp(x))  # expect: [1.        1.6487212 2.7182817 7.389056 ]
print(jnp.exp2(x))  # expect: [1.        1.4142135 2.        4.       ]
print(jnp.log(x + 1), jnp.log1p(x))
# expect: [0.        0.4054651 0.6931472 1.0986123] [0.        0.4054651 0.6931472 1.0986123]
print(jnp.sqrt(x))  # expect: [0.         0.70710677 1.         1.4142135 ]
print(jnp.tanh(x))  # expect: [0.         0.46211717 0.7615942  0.9640276 ]
print(jnp.sin(x))  # expect: [0.         0.47942555 0.84147096 0.9092974 ]
print(jnp.cos(x))  # expect: [ 1.          0.87758255  0.5403023  -0.41614684]
