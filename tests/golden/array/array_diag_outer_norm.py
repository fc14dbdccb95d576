# jnp.diag / diagonal / trace / outer and jnp.linalg.norm (vector and matrix orders). JAX 0.10.2.
import jax.numpy as jnp
import numpy as np

x = jnp.arange(24, dtype=jnp.float32).reshape(2, 3, 4) * 0.37 - 2.1
xi = jnp.arange(12, dtype=jnp.int8).reshape(3, 4)
print(jnp.outer(jnp.arange(3), jnp.array([1.5, 2.0])))  # expect: [[0.  0. ]
# expect:  [1.5 2. ]
# expect:  [3.  4. ]]
print(jnp.outer(xi[0], xi[1]), jnp.outer(xi[0], xi[1]).dtype)  # expect: [[ 0  0  0  0]
# expect:  [ 4  5  6  7]
# expect:  [ 8 10 12 14]
# expect:  [12 15 18 21]] int8
print(jnp.diag(jnp.arange(3)))  # expect: [[0 0 0]
# expect:  [0 1 0]
# expect:  [0 0 2]]
print(jnp.diag(jnp.arange(3), k=1))  # expect: [[0 0 0 0]
# expect:  [0 0 1 0]
# expect:  [0 0 0 2]
# expect:  [0 0 0 0]]
print(jnp.diag(jnp.arange(3.0), k=-2))  # expect: [[0. 0. 0. 0. 0.]
# expect:  [0. 0. 0. 0. 0.]
# expect:  [0. 0. 0. 0. 0.]
# expect:  [0. 1. 0. 0. 0.]
# expect:  [0. 0. 2. 0. 0.]]
print(jnp.diag(x[0]), jnp.diag(x[0], 1), jnp.diag(x[0], -1), jnp.diag(x[0], 7))  # expect: [-2.1        -0.24999988  1.6000001 ] [-1.7299999   0.12000012  1.9700003 ] [-0.6199999  1.23     ] []
print(jnp.diagonal(x))  # expect: [[-2.1        3.8200002]
# expect:  [-1.7299999  4.19     ]
# expect:  [-1.3599999  4.56     ]
# expect:  [-0.9899999  4.9300003]]
print(jnp.diagonal(x, 1, 1, 2))  # expect: [[-1.7299999   0.12000012  1.9700003 ]
# expect:  [ 2.71        4.56        6.4100003 ]]
print(jnp.diagonal(x, -1, axis1=2, axis2=0))  # expect: [[-1.7299999   3.0800004 ]
# expect:  [-0.24999988  4.56      ]
# expect:  [ 1.23        6.0400004 ]]
print(jnp.trace(x[0]), jnp.trace(xi), jnp.trace(xi).dtype, jnp.trace(x, axis1=1, axis2=2))  # expect: -0.74999976 15 int32 [-0.74999976 12.570001  ]
print(jnp.trace(x, 1, 0, 2), x[0].trace(), x.diagonal().shape)  # expect: [1.3500005 4.31      7.2700005] -0.74999976 (4, 2)
print(jnp.linalg.norm(x), jnp.linalg.norm(x[0], axis=1))  # expect: 16.397915 [3.1988432  0.83749634 2.9484577 ]
print(jnp.linalg.norm(x, ord=1, axis=-1))  # expect: [[ 6.1799994  1.4800001  5.660001 ]
# expect:  [11.580002  17.5       23.42     ]]
print(jnp.linalg.norm(x[0, 0], ord=jnp.inf), jnp.linalg.norm(x[0, 0], ord=-jnp.inf))  # expect: 2.1 0.9899999
print(jnp.linalg.norm(x[0, 0], ord=0), jnp.linalg.norm(x[0, 0], ord=3), jnp.linalg.norm(x[0, 0], ord=0.5))  # expect: 4.0 2.6170707 24.261635
print(jnp.linalg.norm(x[0], ord=1), jnp.linalg.norm(x[0], ord=-1), jnp.linalg.norm(x[0], ord=jnp.inf))  # expect: 3.58 3.0800002 6.1799994
print(jnp.linalg.norm(x[0], ord="fro"), jnp.linalg.norm(xi), jnp.linalg.norm(xi).dtype)  # expect: 4.430282 22.494444 float32
print(jnp.linalg.norm(x, ord=jnp.inf, axis=(0, 2), keepdims=True).ravel())  # expect: [11.580002 17.5      23.42    ]
print(jnp.linalg.norm(jnp.array([[3.0, 0.0], [0.0, 4.0]]), ord=2), jnp.linalg.norm(jnp.eye(3), ord="nuc"))  # expect: 4.0 3.0
print(np.linalg.norm(np.array([3.0, 4.0])), np.trace(np.eye(3)))  # expect: 5.0 3.0
for bad in [
    lambda: jnp.diag(x),
    lambda: jnp.diagonal(jnp.ones(3)),
    lambda: jnp.linalg.norm(x, axis=(0, 1, 2)),
    lambda: jnp.linalg.norm(x, ord=1),
    lambda: jnp.linalg.norm(x[0], ord=3),
    lambda: jnp.linalg.norm(x[0, 0], ord="inf"),
]:
    try:
        bad()
    except ValueError as e:
        print("ValueError:", e)  # expect: ValueError: diag input must be 1d or 2d
# expect: ValueError: diagonal requires an array of at least two dimensions.
# expect: ValueError: Improper number of axes for norm: axis=(0, 1, 2). Pass one axis to compute a vector-norm, or two axes to compute a matrix-norm.
# expect: ValueError: Improper number of axes for norm: axis=(0, 1, 2). Pass one axis to compute a vector-norm, or two axes to compute a matrix-norm.
# expect: ValueError: Invalid order '3' for matrix norm.
# expect: ValueError: Invalid order 'inf' for vector norm.Use 'jax.numpy.inf' instead.
