# jnp.pad in every mode JAX supports: edge, wrap, reflect and symmetric (pads longer than the
# axis too, reflect_type="odd"), the statistics (maximum/minimum/mean/median with stat_length),
# linear_ramp with end_values, empty, and constants per axis and side. JAX 0.10.2.
import jax.numpy as jnp

v = jnp.array([1, 2, 3])
x = jnp.arange(6).reshape(2, 3)
f = jnp.array([[1.5, -2.0, 4.0], [0.25, 3.0, 8.0]])
print(jnp.pad(v, 2, mode="edge"), jnp.pad(v, (1, 4), mode="wrap"), jnp.pad(v, 7, mode="wrap"))  # expect: [1 1 1 2 3 3 3] [3 1 2 3 1 2 3 1] [3 1 2 3 1 2 3 1 2 3 1 2 3 1 2 3 1]
print(jnp.pad(v, 5, mode="reflect"), jnp.pad(v, 5, mode="symmetric"))  # expect: [2 1 2 3 2 1 2 3 2 1 2 3 2] [2 3 3 2 1 1 2 3 3 2 1 1 2]
print(jnp.pad(v, (3, 2), mode="reflect", reflect_type="odd"))  # expect: [-2 -1  0  1  2  3  4  5]
print(jnp.pad(v, 4, mode="symmetric", reflect_type="odd"))  # expect: [-1 -1  0  1  1  2  3  3  4  5  5]
print(jnp.pad(jnp.array([7]), 3, mode="reflect"), jnp.pad(jnp.array([7]), 2, mode="symmetric"))  # expect: [7 7 7 7 7 7 7] [7 7 7 7 7]
print(jnp.pad(x, 1, mode="edge"))  # expect: [[0 0 1 2 2]
# expect:  [0 0 1 2 2]
# expect:  [3 3 4 5 5]
# expect:  [3 3 4 5 5]]
print(jnp.pad(x, ((1, 2), (2, 1)), mode="reflect"))  # expect: [[5 4 3 4 5 4]
# expect:  [2 1 0 1 2 1]
# expect:  [5 4 3 4 5 4]
# expect:  [2 1 0 1 2 1]
# expect:  [5 4 3 4 5 4]]
print(jnp.pad(x, ((0, 1), (3, 0)), mode="wrap"))  # expect: [[0 1 2 0 1 2]
# expect:  [3 4 5 3 4 5]
# expect:  [0 1 2 0 1 2]]
print(jnp.pad(f, 1, mode="maximum"))  # expect: [[ 8.    1.5   3.    8.    8.  ]
# expect:  [ 4.    1.5  -2.    4.    4.  ]
# expect:  [ 8.    0.25  3.    8.    8.  ]
# expect:  [ 8.    1.5   3.    8.    8.  ]]
print(jnp.pad(f, ((1, 1), (2, 2)), mode="minimum"))  # expect: [[-2.   -2.    0.25 -2.    4.   -2.   -2.  ]
# expect:  [-2.   -2.    1.5  -2.    4.   -2.   -2.  ]
# expect:  [ 0.25  0.25  0.25  3.    8.    0.25  0.25]
# expect:  [-2.   -2.    0.25 -2.    4.   -2.   -2.  ]]
print(jnp.pad(f, 1, mode="mean"))  # expect: [[ 2.4583335  0.875      0.5        6.         2.4583335]
# expect:  [ 1.1666667  1.5       -2.         4.         1.1666667]
# expect:  [ 3.75       0.25       3.         8.         3.75     ]
# expect:  [ 2.4583335  0.875      0.5        6.         2.4583335]]
print(jnp.pad(x, 1, mode="mean"), jnp.pad(x, 1, mode="mean").dtype)  # expect: [[3 2 2 4 3]
# expect:  [1 0 1 2 1]
# expect:  [4 3 4 5 4]
# expect:  [3 2 2 4 3]] int32
print(jnp.pad(jnp.array([1, 2, 3, 10]), 2, mode="mean", stat_length=2))  # expect: [ 2  2  1  2  3 10  6  6]
print(jnp.pad(jnp.array([1, 2, 3, 10]), 2, mode="median", stat_length=(3, 2)))  # expect: [ 2  2  1  2  3 10  6  6]
print(jnp.pad(jnp.array([1.0, 4.0, 2.0, 7.0]), 1, mode="median"))  # expect: [3. 1. 4. 2. 7. 3.]
print(jnp.pad(jnp.array([1.0, 2.0]), (4, 3), mode="linear_ramp", end_values=(5, -1)))  # expect: [ 5.0000000e+00  4.0000000e+00  3.0000000e+00  2.0000000e+00
# expect:   1.0000000e+00  2.0000000e+00  1.0000000e+00  5.9604645e-08
# expect:  -1.0000000e+00]
print(jnp.pad(jnp.array([10, 20]), 3, mode="linear_ramp"))  # expect: [ 0  3  6 10 20 13  6  0]
print(jnp.pad(x, 1, mode="empty"))  # expect: [[0 0 0 0 0]
# expect:  [0 0 1 2 0]
# expect:  [0 3 4 5 0]
# expect:  [0 0 0 0 0]]
print(jnp.pad(x, ((1, 0), (1, 1)), constant_values=((7, 8), (9, 5))))  # expect: [[9 7 7 7 5]
# expect:  [9 0 1 2 5]
# expect:  [9 3 4 5 5]]
print(jnp.pad(f, 1, constant_values=(-1, 2)), jnp.pad(x, 1, constant_values=2.7).dtype)  # expect: [[-1.   -1.   -1.   -1.    2.  ]
# expect:  [-1.    1.5  -2.    4.    2.  ]
# expect:  [-1.    0.25  3.    8.    2.  ]
# expect:  [-1.    2.    2.    2.    2.  ]] int32
print(jnp.pad(jnp.array(5), 3, mode="edge"))  # expect: 5
for bad in [
    lambda: jnp.pad(v, 2, mode="wobble"),
    lambda: jnp.pad(v, 2, mode="edge", constant_values=1),
    lambda: jnp.pad(v, -1, mode="edge"),
    lambda: jnp.pad(jnp.zeros((0,)), 1, mode="wrap"),
    lambda: jnp.pad(v, 1, mode="mean", stat_length=0),
    lambda: jnp.pad(x, ((1, 2, 3),)),
]:
    try:
        bad()
    except (ValueError, NotImplementedError) as e:
        print(type(e).__name__ + ":", e)  # expect: NotImplementedError: Unimplemented padding mode 'wobble' for np.pad.
# expect: ValueError: unsupported keyword arguments for mode 'edge': {'constant_values'}
# expect: ValueError: index can't contain negative values
# expect: ValueError: Cannot apply 'wrap' padding to empty axis
# expect: ValueError: stat_length of 0 yields no value for padding
# expect: ValueError: jnp.pad: pad_width with nd=2 has unsupported shape (1, 3). Valid shapes are (2, 2), (1, 2), (2,), (1,), or ().
