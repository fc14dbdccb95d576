# jax.nn.relu, sigmoid, silu and gelu
import jax
import jax.numpy as jnp

x = jnp.array([-2.0, -0.5, 0.0, 0.5, 2.0])
print(jax.nn.relu(x))  # expect: [0.  0.  0.  0.5 2. ]
print(jax.nn.sigmoid(x))  # expect: [0.11920292 0.37754068 0.5        0.62245935 0.880797  ]
print(jax.nn.silu(x))  # expect: [-0.23840584 -0.18877034  0.          0.31122968  1.761594  ]
print(jax.nn.gelu(x))  # expect: [-0.04540235 -0.154286    0.          0.345714    1.9545977 ]
print(jax.nn.gelu(x[1:], approximate=False))
# expect: [-0.15426877  0.          0.34573123  1.9544997 ]
