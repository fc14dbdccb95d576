# jax.grad / vjp / jvp / custom_vjp mistakes get JAX's errors (real JAX 0.10.2 wording)
import jax
import jax.numpy as jnp

x = jnp.arange(3.0)


def report(f):
  try:
    print(f())
  except Exception as e:
    print(type(e).__name__, ":", e)


report(lambda: jax.grad(lambda a: a)(x))
report(lambda: jax.grad(lambda a: a.sum())(jnp.arange(3)))
report(lambda: jax.grad(lambda a: jnp.argmax(a))(x))
report(lambda: jax.grad(lambda a: (a.sum(), 1))(x))
report(lambda: jax.grad(lambda a, b: (a * b).sum(), argnums=(0, 2))(x, x))
report(lambda: jax.vjp(lambda a: a * 2, x)[1](jnp.ones(4)))
report(lambda: jax.vjp(lambda a: a * 2, x)[1](jnp.ones(3, jnp.int32)))
report(lambda: jax.jvp(lambda a: a, (x,), (x, x)))
report(lambda: jax.jvp(lambda a: a, x, x))


@jax.custom_vjp
def f(a):
  return a * 2


f.defvjp(lambda a: (a * 2, None), lambda r, g: (g * 3, g))
report(lambda: jax.grad(lambda a: f(a).sum())(x))
f.defvjp(lambda a: (a * 2, None), lambda r, g: g * 3)
report(lambda: jax.grad(lambda a: f(a).sum())(x))
f.defvjp(lambda a: (a * 2, None), lambda r, g: (jnp.ones(2),))
report(lambda: jax.grad(lambda a: f(a).sum())(x))
f.defvjp(lambda a: (a * 2, None), lambda r, g: (g * 3,))
report(lambda: jax.grad(lambda a: f(a).sum())(x))
report(lambda: jax.jvp(f, (x,), (x,)))
# expect: TypeError : Gradient only defined for scalar-output functions. Output had shape: (3,).
# expect: TypeError : grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32. If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to True.
# expect: TypeError : grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32. For differentiation of functions with integer outputs, use jax.vjp directly.
# expect: TypeError : Gradient only defined for scalar-output functions. Output was (Array(3., dtype=float32), 1).
# expect: TypeError : differentiating with respect to argnums=(0, 2) requires at least 3 positional arguments to be passed by the caller, but got only 2 positional arguments.
# expect: ValueError : unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got float32[4], but expected float32[3] because the corresponding output of the differentiated function had JAX type float32[3]
# expect: ValueError : unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got int32[3], but expected float32[3] because the corresponding output of the differentiated function had JAX type float32[3]
# expect: TypeError : primal and tangent arguments to jax.jvp must have the same tree structure; primals have tree structure PyTreeDef((*,)) whereas tangents have tree structure PyTreeDef((*, *)).
# expect: TypeError : primal and tangent arguments to jax.jvp must be tuples or lists; found ArrayImpl and ArrayImpl.
# expect: TypeError : Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args tuple of the primal function, and in particular must produce a tuple of length equal to the number of arguments to the primal function, but got bwd output structure PyTreeDef((*, *)) for primal input structure PyTreeDef((*,)).
# expect: TypeError : Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args tuple of the primal function, and in particular must produce a tuple of length equal to the number of arguments to the primal function, but got bwd output structure PyTreeDef(*) for primal input structure PyTreeDef((*,)).
# expect: ValueError : Custom VJP bwd rule must produce an output with the same type as the args tuple of the primal function, but at output[0] the bwd rule produced an output of type float32[2] corresponding to an input of type float32[3], so the shapes do not match
# expect: [3. 3. 3.]
# expect: TypeError : can't apply forward-mode autodiff (jvp) to a custom_vjp function.
