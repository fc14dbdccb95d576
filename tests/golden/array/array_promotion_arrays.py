# mixing array dtypes follows JAX's promotion lattice
import jax.numpy as jnp

f32 = jnp.ones(2, jnp.float32)
bf = jnp.ones(2, jnp.bfloat16)
f16 = jnp.ones(2, jnp.float16)
i32 = jnp.ones(2, jnp.int32)
i8 = jnp.ones(2, jnp.int8)
u8 = jnp.ones(2, jnp.uint8)
b = jnp.ones(2, jnp.bool_)
print((bf + f32).dtype, (bf + f16).dtype, (i32 + bf).dtype)  # expect: float32 float32 bfloat16
print((i8 + i32).dtype, (u8 + i8).dtype, (b + b).dtype, (b + i8).dtype)
# expect: int32 int16 bool int8
print((i32 / i32).dtype, (i8 / 2).dtype)  # expect: float32 float32
