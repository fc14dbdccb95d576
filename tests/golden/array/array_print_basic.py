# print and repr of small float, int and bool arrays
import jax.numpy as jnp

x = jnp.array([[1.0, 2.5], [-3.0, 4.25]])
print(x)  # expect: [[ 1.    2.5 ]
# expect:  [-3.    4.25]]
print(repr(x))  # expect: Array([[ 1.  ,  2.5 ],
# expect:        [-3.  ,  4.25]], dtype=float32)
print(jnp.array([1, -2, 30]))  # expect: [ 1 -2 30]
print(repr(jnp.array([1, -2, 30])))  # expect: Array([ 1, -2, 30], dtype=int32)
print(jnp.array([True, False, True]))  # expect: [ True False  True]
print(repr(jnp.array([True, False])))  # expect: Array([ True, False], dtype=bool)
