# jax.grad and jax.value_and_grad of jax.numpy functions: one rule per primitive, checked against real JAX
import jax
import jax.numpy as jnp
import numpy as np

x = jnp.arange(6.0).reshape(2, 3) - 2.0
r = lambda a: jnp.round(a, 4)


def show(name, f, *args, argnums=0):
  print(name, jax.tree.map(r, jax.grad(f, argnums=argnums)(*args)))


# Elementwise arithmetic, with broadcasting and Python scalars
show("mul", lambda x: jnp.sum(x * x * 3.0), x)
show("div", lambda x, y: jnp.sum(x / y), x, jnp.array([1.0, 2.0, 4.0]), argnums=(0, 1))
show("sub", lambda x, y: jnp.sum(x - 2 * y), x, jnp.ones((2, 1)), argnums=(0, 1))
show("neg abs", lambda x: jnp.sum(-jnp.abs(x)), x)
show("pow", lambda x: jnp.sum(x ** 3 + jnp.power(2.0, x)), x)
show("pow y", lambda y: jnp.sum(jnp.power(jnp.array([1.0, 2.0, 3.0]), y)), jnp.array([2.0, 0.5, 1.0]))
show("max ties", lambda x: jnp.sum(jnp.maximum(x, 0.0) + jnp.minimum(x, 1.0)), x)
show("clip", lambda x: jnp.sum(jnp.clip(x, -1.0, 1.5)), x)
show("where", lambda x: jnp.sum(jnp.where(x > 0, x * x, 2.0 * x)), x)
show("floor sign round", lambda x: jnp.sum(jnp.floor(x) + jnp.sign(x) + jnp.round(x) + x), x)
show("remainder", lambda x, y: jnp.sum(jnp.remainder(x, y)), x + 0.5, jnp.array([1.5, 2.0, 4.0]), argnums=(0, 1))
# Transcendentals
show("exp log", lambda x: jnp.sum(jnp.exp(x) + jnp.log(x + 3.0) + jnp.log1p(x + 2.5) + jnp.expm1(x)), x)
show("sqrt rsqrt", lambda x: jnp.sum(jnp.sqrt(x + 3.0) + jax.lax.rsqrt(x + 3.0)), x)
show("tanh logistic", lambda x: jnp.sum(jnp.tanh(x) + jax.nn.sigmoid(x)), x)
show("sin cos tan", lambda x: jnp.sum(jnp.sin(x) * jnp.cos(x) + jnp.tan(x / 4)), x)
show("erf exp2", lambda x: jnp.sum(jax.lax.erf(x) + jnp.exp2(x)), x)
show("square reciprocal", lambda x: jnp.sum(jnp.square(x) + jnp.reciprocal(x + 2.5)), x)
show("atan2", lambda a, b: jnp.sum(jnp.arctan2(a, b)), x, x + 3.0, argnums=(0, 1))
# Reductions
show("sum axis", lambda x: jnp.sum(jnp.sum(x, axis=0) * jnp.array([1.0, 2.0, 3.0])), x)
show("max axis", lambda x: jnp.sum(jnp.max(jnp.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]) * x, axis=1)), jnp.ones((2, 3)))
show("min all", lambda x: jnp.min(x), x)
show("mean", lambda x: jnp.mean(x * x), x)
show("logsumexp", lambda x: jax.nn.logsumexp(x), x)
show("softmax", lambda x: jnp.sum(jax.nn.softmax(x, axis=-1) * jnp.arange(3.0)), x)
show("cumsum", lambda x: jnp.sum(jnp.cumsum(x, axis=1) * x), x)
# Products
w = jnp.arange(12.0).reshape(3, 4) / 4
show("matmul", lambda x, w: jnp.sum(x @ w), x, w, argnums=(0, 1))
show("dot vector", lambda v: jnp.dot(v, jnp.array([1.0, -1.0, 2.0])), jnp.ones(3))
show("einsum batch", lambda a, b: jnp.sum(jnp.einsum("bij,bkj->bik", a, b) ** 2),
     jnp.arange(12.0).reshape(2, 2, 3) / 8, jnp.arange(18.0).reshape(2, 3, 3) / 8, argnums=(0, 1))
show("dot_general", lambda a, b: jnp.sum(jax.lax.dot_general(a, b, (((0,), (1,)), ((), ())))),
     x, w.T[:, :2], argnums=(0, 1))
# Shapes and data movement
show("reshape transpose", lambda x: jnp.sum(x.reshape(3, 2).T * jnp.arange(6.0).reshape(2, 3)), x)
show("broadcast", lambda v: jnp.sum(jnp.broadcast_to(v, (4, 3)) * x[0]), jnp.ones(3))
show("expand squeeze", lambda x: jnp.sum(jnp.squeeze(x[:, None, :], 1) * x), x)
show("slices", lambda x: jnp.sum(x[0, 1:] * 3) + x.T[2, 1] + jnp.sum(x[:, ::2]), x)
show("gather", lambda x: jnp.sum(x[jnp.array([1, 1, 0]), jnp.array([0, 2, 2])]), x)
show("concat split", lambda x: jnp.sum(jnp.concatenate([x, 2 * x], axis=1)[:, 2:5]) + jnp.sum(jnp.split(x, 3, axis=1)[1]), x)
show("stack", lambda x: jnp.sum(jnp.stack([x, x * x])[1]), x)
show("pad roll flip", lambda x: jnp.sum(jnp.pad(x, ((1, 0), (0, 2))) * jnp.arange(5.0)) + jnp.sum(jnp.roll(x, 1, axis=1) * jnp.arange(3.0)) + jnp.sum(jnp.flip(x, 0)[0]), x)
show("tile repeat", lambda x: jnp.sum(jnp.tile(x, (2, 1)) * jnp.arange(3.0)) + jnp.sum(jnp.repeat(x, 2, axis=0)[1:]), x)
show("at set add", lambda x: jnp.sum(x.at[0, 1].set(5.0) * 2 + x.at[1].add(x[0])), x)
show("dynamic_slice", lambda x: jnp.sum(jax.lax.dynamic_slice(x, (1, 1), (1, 2)) * 3), x)
show("astype", lambda x: jnp.sum(x.astype(jnp.bfloat16).astype(jnp.float32) * 2), x)
show("stop_gradient", lambda x: jnp.sum(x * jax.lax.stop_gradient(x)), x)

# Arguments: pytrees, Python scalars, bfloat16, several argnums, has_aux, value_and_grad
print(jax.grad(lambda p: jnp.sum(p["w"] * p["b"][0]) + p["b"][1])({"w": jnp.ones(2), "b": (3.0, 2.0)}))
print(jax.grad(lambda a: a * a * a)(2.0))
print(jax.grad(lambda a: jnp.sum(a * a))(jnp.ones(2, jnp.bfloat16)))
print(jax.grad(lambda a, b, c: a * b + c, argnums=(2, 0))(2.0, 3.0, 4.0))
print(jax.grad(lambda a: (a * a, {"aux": a + 1}), has_aux=True)(3.0))
print(jax.value_and_grad(lambda a: jnp.sum(a ** 2))(jnp.array([1.0, 2.0])))
print(jax.value_and_grad(lambda a, b: (a * b, "note"), argnums=1, has_aux=True)(2.0, 5.0))
print(jax.grad(lambda a: 3.0)(1.0))
print(jax.grad(lambda a: jnp.sum(a * 0 + jnp.ones(2)))(jnp.ones(2)))
# Python control flow on values works under grad (not under jit)
print(jax.grad(lambda a: a * 2 if a > 0 else -a)(1.5), jax.grad(lambda a: a * 2 if a > 0 else -a)(-1.5))
print(jax.grad(jax.grad(lambda a: a) if False else (lambda a: jnp.sin(a)))(0.0))
# A differentiated function may call another differentiation on its own values
print(jax.grad(lambda a: a * jax.grad(lambda b: b * b)(3.0))(2.0))
# expect: mul [[-12.  -6.   0.]
# expect:  [  6.  12.  18.]]
# expect: div (Array([[1.  , 0.5 , 0.25],
# expect:        [1.  , 0.5 , 0.25]], dtype=float32), Array([ 1.    , -0.25  , -0.1875], dtype=float32))
# expect: sub (Array([[1., 1., 1.],
# expect:        [1., 1., 1.]], dtype=float32), Array([[-6.],
# expect:        [-6.]], dtype=float32))
# expect: neg abs [[ 1.  1. -1.]
# expect:  [-1. -1. -1.]]
# expect: pow [[12.1733     3.3465998  0.6931   ]
# expect:  [ 4.3863    14.772599  32.5452   ]]
# expect: pow y [0.         0.98029995 3.2958    ]
# expect: max ties [[1.  1.  1.5]
# expect:  [1.5 1.  1. ]]
# expect: clip [[0.  0.5 1. ]
# expect:  [1.  0.  0. ]]
# expect: where [[2. 2. 2.]
# expect:  [2. 4. 6.]]
# expect: floor sign round [[1. 1. 1.]
# expect:  [1. 1. 1.]]
# expect: remainder (Array([[1., 1., 1.],
# expect:        [1., 1., 1.]], dtype=float32), Array([0., 0., 0.], dtype=float32))
# expect: exp log [[ 1.9373     1.6358     2.619    ]
# expect:  [ 5.9087996 15.1599    40.4916   ]]
# expect: sqrt rsqrt [[0.         0.1768     0.1925    ]
# expect:  [0.1875     0.17889999 0.17009999]]
# expect: tanh logistic [[0.17559999 0.6166     1.25      ]
# expect:  [0.6166     0.17559999 0.055     ]]
# expect: sin cos tan [[-0.329  -0.1498  1.25  ]
# expect:  [-0.1498 -0.329   1.4271]]
# expect: erf exp2 [[0.19399999 0.7617     1.8215    ]
# expect:  [1.8014     2.7933     5.5453    ]]
# expect: square reciprocal [[-8.        -2.4443998 -0.16     ]
# expect:  [ 1.9183999  3.9506     5.9669   ]]
# expect: atan2 (Array([[0.19999999, 0.39999998, 0.3333    ],
# expect:        [0.23529999, 0.1724    , 0.13329999]], dtype=float32), Array([[ 0.39999998,  0.19999999, -0.        ],
# expect:        [-0.0588    , -0.069     , -0.0667    ]], dtype=float32))
# expect: sum axis [[1. 2. 3.]
# expect:  [1. 2. 3.]]
# expect: max axis [[0.  1.5 1.5]
# expect:  [1.  1.  0. ]]
# expect: min all [[1. 0. 0.]
# expect:  [0. 0. 0.]]
# expect: mean [[-0.6667 -0.3333  0.    ]
# expect:  [ 0.3333  0.6667  1.    ]]
# expect: logsumexp [[0.0043 0.0116 0.0315]
# expect:  [0.0858 0.2331 0.6337]]
# expect: softmax [[-0.1418 -0.1408  0.2826]
# expect:  [-0.1418 -0.1408  0.2826]]
# expect: cumsum [[-5. -4. -3.]
# expect:  [ 7.  8.  9.]]
# expect: matmul (Array([[1.5, 5.5, 9.5],
# expect:        [1.5, 5.5, 9.5]], dtype=float32), Array([[-1., -1., -1., -1.],
# expect:        [ 1.,  1.,  1.,  1.],
# expect:        [ 3.,  3.,  3.,  3.]], dtype=float32))
# expect: dot vector [ 1. -1.  2.]
# expect: einsum batch (Array([[[ 0.70309997,  0.86719996,  1.0311999 ],
# expect:         [ 2.6016    ,  3.1875    ,  3.7733998 ]],
# expect:
# expect:        [[40.1484    , 43.371098  , 46.5938    ],
# expect:         [57.234398  , 61.8281    , 66.4219    ]]], dtype=float32), Array([[[ 0.16409999,  0.2383    ,  0.3125    ],
# expect:         [ 0.5859    ,  0.8359    ,  1.0859    ],
# expect:         [ 1.0078    ,  1.4336    ,  1.8593999 ]],
# expect:
# expect:        [[15.585899  , 17.5938    , 19.601599  ],
# expect:         [20.226599  , 22.831999  , 25.4375    ],
# expect:         [24.867199  , 28.0703    , 31.2734    ]]], dtype=float32))
# expect: dot_general (Array([[1.5, 1.5, 1.5],
# expect:        [5.5, 5.5, 5.5]], dtype=float32), Array([[-3.,  6.],
# expect:        [-3.,  6.],
# expect:        [-3.,  6.],
# expect:        [-3.,  6.]], dtype=float32))
# expect: reshape transpose [[0. 3. 1.]
# expect:  [4. 2. 5.]]
# expect: broadcast [-8. -4.  0.]
# expect: expand squeeze [[-4. -2.  0.]
# expect:  [ 2.  4.  6.]]
# expect: slices [[1. 3. 4.]
# expect:  [1. 0. 2.]]
# expect: gather [[0. 0. 1.]
# expect:  [1. 0. 1.]]
# expect: concat split [[2. 3. 1.]
# expect:  [2. 3. 1.]]
# expect: stack [[-4. -2.  0.]
# expect:  [ 2.  4.  6.]]
# expect: pad roll flip [[1. 3. 2.]
# expect:  [2. 4. 3.]]
# expect: tile repeat [[1. 3. 5.]
# expect:  [2. 4. 6.]]
# expect: at set add [[4. 2. 4.]
# expect:  [3. 3. 3.]]
# expect: dynamic_slice [[0. 0. 0.]
# expect:  [0. 3. 3.]]
# expect: astype [[2. 2. 2.]
# expect:  [2. 2. 2.]]
# expect: stop_gradient [[-2. -1.  0.]
# expect:  [ 1.  2.  3.]]
# expect: {'b': (Array(2., dtype=float32, weak_type=True), Array(1., dtype=float32, weak_type=True)), 'w': Array([3., 3.], dtype=float32)}
# expect: 12.0
# expect: [2 2]
# expect: (Array(1., dtype=float32, weak_type=True), Array(3., dtype=float32, weak_type=True))
# expect: (Array(6., dtype=float32, weak_type=True), {'aux': Array(4., dtype=float32, weak_type=True)})
# expect: (Array(5., dtype=float32), Array([2., 4.], dtype=float32))
# expect: ((Array(10., dtype=float32, weak_type=True), 'note'), Array(2., dtype=float32, weak_type=True))
# expect: 0.0
# expect: [0. 0.]
# expect: 2.0 -1.0
# expect: 1.0
# expect: 6.0
