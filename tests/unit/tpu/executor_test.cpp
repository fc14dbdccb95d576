// The IR executor (engine/tpu/executor.cpp) seen through whole programs: a value loaded from a
// ref is a snapshot. Loads of a whole buffer share it instead of copying it, so these tests write
// the buffer while such a value (or one computed from it without a copy) is still to be read,
// in straight-line code, loops, branches and DMAs, and check the value did not change.
#include "tpu/executor.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "unit/tpu/run_kernel.h"

namespace pz::tpu {
namespace {

using testing::Interpret;
using testing::KernelOutput;
using testing::Tpu;

// Runs `body` as the kernel of a one-step call with an (8,) f32 input x = 0..7, an (8,) f32
// output and an (8,) f32 VMEM scratch `s`; prints the output.
std::string RunBody(std::string_view body, EmulatorOptions options = Tpu()) {
  return KernelOutput(fmt::format(R"(
def kernel(x_ref, o_ref, s):
{}


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
                     scratch_shapes=[pltpu.VMEM((8,), jnp.float32)])(x)
print(out.tolist())
)",
                                  body),
                      options);
}

TEST(Executor, LoadedValueSurvivesAStoreToItsRef) {
  for (EmulatorOptions options : {Tpu(), Interpret()}) {
    EXPECT_EQ(RunBody(R"(
    s[...] = x_ref[...]
    before = s[...]
    s[...] = jnp.zeros((8,), jnp.float32)
    o_ref[...] = before + s[...])",
                      options),
              "[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]\n");
  }
}

// Big scratch stores may hand the value's storage to the buffer instead of copying it; only for
// a value nothing reads afterwards.
TEST(Executor, ValueStillReadAfterItsStoreIntoScratchKeepsItsOwnStorage) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_ref, o_ref, s):
    v = x_ref[...] * 2.0
    s[...] = v
    s[0, 0] = 100.0
    o_ref[...] = v + s[...]
    w = v + 1.0
    s[...] = w
    o_ref[1, 0] = s[1, 0] + w[1, 0]


x = jnp.ones((32, 128), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
                     scratch_shapes=[pltpu.VMEM((32, 128), jnp.float32)])(x)
print(out[0, 0], out[0, 1], out[1, 0], float(out.sum()))
)"),
            "102.0 4.0 6.0 " + std::to_string(4 * 32 * 128 + 98 + 2) + ".0\n");
}

TEST(Executor, ScratchTakingAValuesStorageKeepsItAcrossGridSteps) {
  // Step 0 stores 3 (its storage moves into `s`), then 11; step 1 loads 11 and stores 11 again
  // from the storage the first store gave up.
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_ref, o_ref, s):
    @pl.when(pl.program_id(0) == 0)
    def _():
        s[...] = x_ref[...] * 3.0

    prev = s[...]
    s[...] = x_ref[...] + 10.0
    o_ref[...] = prev + s[...] * (pl.program_id(0) + 1).astype(jnp.float32)


x = jnp.ones((32, 128), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32), grid=(2,),
                     scratch_shapes=[pltpu.VMEM((32, 128), jnp.float32)])(x)
print(out[0, 0], float(out.min()), float(out.max()))
)"),
            "33.0 33.0 33.0\n");
}

TEST(Executor, ViewOfALoadedValueSurvivesAStore) {
  // reshape and indexing of a value give views of its storage, which is the ref's buffer.
  EXPECT_EQ(RunBody(R"(
    s[...] = x_ref[...]
    v = s[...]
    r = v.reshape(2, 4)
    tail = v[4:]
    s[...] = jnp.full((8,), 100.0, jnp.float32)
    o_ref[...] = r.reshape(8) + jnp.concatenate([tail, tail]))"),
            "[4.0, 6.0, 8.0, 10.0, 8.0, 10.0, 12.0, 14.0]\n");
}

TEST(Executor, StoringATransposedViewOfTheSameRefReadsBeforeWriting) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]
    o_ref[...] = o_ref[...].T


x = jnp.arange(4, dtype=jnp.int32).reshape(2, 2)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 2), jnp.int32))(x)
print(out.tolist())
)"),
            "[[0, 2], [1, 3]]\n");
}

TEST(Executor, ValueLoadedBeforeALoopSurvivesStoresInsideIt) {
  // The store is the last instruction of the body, and the value is read again next iteration.
  EXPECT_EQ(RunBody(R"(
    s[...] = x_ref[...]
    first = s[...]

    def body(i, acc):
        acc = acc + first
        s[...] = acc
        return acc

    o_ref[...] = lax.fori_loop(0, 3, body, jnp.zeros((8,), jnp.float32)))"),
            "[0.0, 3.0, 6.0, 9.0, 12.0, 15.0, 18.0, 21.0]\n");
}

TEST(Executor, WhileLoopCarryLoadedFromARefSurvivesStoresInTheBody) {
  EXPECT_EQ(RunBody(R"(
    s[...] = x_ref[...]

    def body(carry):
        n, v = carry
        s[...] = v * 10.0
        return n + 1, v + s[...]

    n, v = lax.while_loop(lambda c: c[0] < 2, body, (0, s[...]))
    o_ref[...] = v)"),
            "[0.0, 121.0, 242.0, 363.0, 484.0, 605.0, 726.0, 847.0]\n");
}

TEST(Executor, LoadedValueSurvivesAStoreInABranch) {
  EXPECT_EQ(RunBody(R"(
    s[...] = x_ref[...]
    before = s[...]

    @pl.when(before[0] == 0.0)
    def _():
        s[...] = jnp.zeros((8,), jnp.float32)

    o_ref[...] = before * 2.0 + s[...])"),
            "[0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]\n");
}

TEST(Executor, LoadedValueSurvivesADmaIntoItsRef) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_hbm, o_ref, buf, sem):
    buf[...] = jnp.full((8,), 5.0, jnp.float32)
    before = buf[...]
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.start()
    copy.wait()
    o_ref[...] = before + buf[...]


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA])(x)
print(out.tolist())
)"),
            "[5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]\n");
}

// `acc + jnp.dot(x, y)` runs as one accumulating product: into the addend's storage when the
// addend is a temporary that dies there (cos), else into a copy of it (a load of the scratch,
// `t` that is read again, a borrowed input block). Either
// way the values are those of the product and the add run apart, which `* 1.0` forces (an exact
// product that sits between the dot and the add), bit for bit, over four steps that accumulate
// in scratch, with a transposed product and an addend that is read again afterwards.
TEST(Executor, AccumulatingProductEqualsProductThenAdd) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_ref, y_ref, o_ref, fused, apart, acc, acc2):
    @pl.when(pl.program_id(0) == 0)
    def _():
        acc[...] = jnp.zeros(acc.shape, jnp.float32)
        acc2[...] = jnp.zeros(acc2.shape, jnp.float32)

    x, y = x_ref[...], y_ref[...]
    acc[...] += jnp.dot(x, y, preferred_element_type=jnp.float32)
    acc2[...] += jnp.dot(x, y, preferred_element_type=jnp.float32) * 1.0
    t = jnp.sin(x)
    u = jnp.cos(x) + lax.dot_general(x, y, (((1,), (1,)), ((), ())))
    v = jnp.cos(x) + lax.dot_general(x, y, (((1,), (1,)), ((), ()))) * 1.0
    w = lax.dot_general(x, y, (((0,), (0,)), ((), ()))) + x
    z = lax.dot_general(x, y, (((0,), (0,)), ((), ()))) * 1.0 + x
    fused[...] = jnp.concatenate([u, w + t], axis=1)
    apart[...] = jnp.concatenate([v, z + t], axis=1)
    o_ref[...] = acc[...] - acc2[...]


n = 64
x = jnp.sin(jnp.arange(4 * n * n, dtype=jnp.float32).reshape(4 * n, n) * 0.37)
y = jnp.cos(jnp.arange(4 * n * n, dtype=jnp.float32).reshape(4 * n, n) * 0.11)
spec = pl.BlockSpec((n, n), lambda i: (i, 0))
wide = pl.BlockSpec((n, 2 * n), lambda i: (i, 0))
o, fused, apart = pl.pallas_call(
    kernel, grid=(4,), in_specs=[spec, spec],
    out_specs=[pl.BlockSpec((n, n), lambda i: (0, 0)), wide, wide],
    out_shape=[jax.ShapeDtypeStruct((n, n), jnp.float32),
               jax.ShapeDtypeStruct((4 * n, 2 * n), jnp.float32),
               jax.ShapeDtypeStruct((4 * n, 2 * n), jnp.float32)],
    scratch_shapes=[pltpu.VMEM((n, n), jnp.float32), pltpu.VMEM((n, n), jnp.float32)])(x, y)
bits = lambda a: lax.bitcast_convert_type(a, jnp.int32)
print(bool(jnp.all(bits(o) == 0)), bool(jnp.all(bits(fused) == bits(apart))),
      float(jnp.abs(fused).sum()) > 0)
)"),
            "True True True\n");
}

// `scale * x + dot(a, b)`, the scale a column: the product scales each element of x as it reads
// it (one pass, no separate multiply), x in either operand order, dying or read again later, the
// scale read again later; beside it the same values with the fusion blocked (`* 1.0` changes no
// bit). Over four grid steps the storage circulates. Scales with zeros of both signs, negative
// values and infinities, one of them times a zero of x (NaN; JAX 0.10.2 prints the same line
// with interpret=True). Left apart, and agreeing too: a
// (1, n) row scale, a mul read before the add, a mul of a loaded value whose ref is stored before
// the add, and a product deeper than one panel (planned, then declined: the mul runs late, at the
// product).
TEST(Executor, ScaledAddendOfAnAccumulatingProductEqualsTheMulThenTheAdd) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(p_ref, v_ref, s_ref, o_ref, fused, apart, acc, acc2):
    @pl.when(pl.program_id(0) == 0)
    def _():
        acc[...] = jnp.ones(acc.shape, jnp.float32)
        acc2[...] = jnp.ones(acc2.shape, jnp.float32)

    p, v, s = p_ref[...], v_ref[...], s_ref[...]
    acc[...] = s * acc[...] + jnp.dot(p, v, preferred_element_type=jnp.float32)
    acc2[...] = (s * acc2[...]) * 1.0 + jnp.dot(p, v, preferred_element_type=jnp.float32) * 1.0
    x = p + 1.0
    y = x * s + lax.dot_general(p, v, (((1,), (0,)), ((), ())))
    y2 = (x * s) * 1.0 + lax.dot_general(p, v, (((1,), (0,)), ((), ()))) * 1.0
    row = s.reshape(1, -1)
    z = row * x + jnp.dot(p, v)
    z2 = (row * x) * 1.0 + jnp.dot(p, v) * 1.0
    w = s * x
    seen = jnp.sum(w)
    u = w + jnp.dot(p, v)
    u2 = (s * x) * 1.0 + jnp.dot(p, v) * 1.0
    first = acc[...] * 1.0
    # A load sharing the buffer (the partial read keeps it from taking the storage), read last
    # by the mul, then the buffer written before the add.
    a = acc[...]
    b = s * a
    peek = acc[0:8, :]
    acc[...] = jnp.zeros(acc.shape, jnp.float32)
    c = b + jnp.dot(p, v)
    c2 = (s * first) * 1.0 + jnp.dot(p, v) * 1.0
    acc[...] = first
    pw, vw = jnp.concatenate([p] * 8, axis=1), jnp.concatenate([v] * 8, axis=0)
    d = s * x + jnp.dot(pw, vw)
    d2 = (s * x) * 1.0 + jnp.dot(pw, vw) * 1.0
    fused[...] = jnp.concatenate([first, y + x, z, u + seen + s, d, c], axis=1)
    apart[...] = jnp.concatenate([acc2[...], y2 + x, z2, u2 + seen + s, d2, c2], axis=1)
    o_ref[...] = s


n = 64
p = jnp.sin(jnp.arange(4 * n * n, dtype=jnp.float32).reshape(4 * n, n) * 0.37)
v = jnp.cos(jnp.arange(n * n, dtype=jnp.float32).reshape(n, n) * 0.11)
s = jnp.cos(jnp.arange(4 * n, dtype=jnp.float32).reshape(4 * n, 1) * 0.7) * 3.0
s = s.at[3].set(0.0).at[4].set(-0.0).at[5].set(jnp.inf).at[70].set(-jnp.inf)
p = p.at[5, 3].set(-1.0)  # x = p + 1 is 0 there, in the row the infinity scales
block = pl.BlockSpec((n, n), lambda i: (i, 0))
wide = pl.BlockSpec((n, 6 * n), lambda i: (i, 0))
o, fused, apart = pl.pallas_call(
    kernel, grid=(4,),
    in_specs=[block, pl.BlockSpec((n, n), lambda i: (0, 0)), pl.BlockSpec((n, 1), lambda i: (i, 0))],
    out_specs=[pl.BlockSpec((n, 1), lambda i: (i, 0)), wide, wide],
    out_shape=[jax.ShapeDtypeStruct((4 * n, 1), jnp.float32),
               jax.ShapeDtypeStruct((4 * n, 6 * n), jnp.float32),
               jax.ShapeDtypeStruct((4 * n, 6 * n), jnp.float32)],
    scratch_shapes=[pltpu.VMEM((n, n), jnp.float32), pltpu.VMEM((n, n), jnp.float32)])(p, v, s)
bits = lambda a: lax.bitcast_convert_type(a, jnp.int32)
print(bool(jnp.all(bits(fused) == bits(apart))), int(jnp.sum(jnp.isnan(fused))) > 0,
      bool(jnp.all(bits(o) == bits(s))))
)"),
            "True True True\n");
}

// An elementwise op whose operand dies there computes into that operand's storage. Over four
// grid steps (the storage then circulates between the instructions), in a loop and with an
// operand used twice (`t * t`), the values equal those computed with the operand kept alive
// (read again afterwards, so it keeps its own storage), bit for bit.
TEST(Executor, ElementwiseOpsComputedIntoADyingOperandKeepTheirValues) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_ref, m_ref, o_ref, p_ref):
    m = m_ref[...]
    s = x_ref[...] * 2.0
    a = jnp.exp(jnp.maximum(s - m, -3.0))
    t = a + 1.0
    a2 = t * t
    a3 = lax.fori_loop(0, 3, lambda i, v: jnp.exp(v * 0.5) - 1.0, a2 - 1.0)
    s_kept = x_ref[...] * 2.0
    d = s_kept - m
    b = jnp.exp(jnp.maximum(d, -3.0))
    u = b + 1.0
    b2 = u * u
    b3 = lax.fori_loop(0, 3, lambda i, v: jnp.exp(v * 0.5) - 1.0, b2 - 1.0)
    o_ref[...] = jnp.concatenate([a, a2, a3], axis=1)
    p_ref[...] = jnp.concatenate([b + 0.0 * (s_kept + d + u), b2, b3], axis=1)


x = jnp.sin(jnp.arange(4 * 32 * 128, dtype=jnp.float32).reshape(4 * 32, 128))
m = jnp.cos(jnp.arange(4 * 32, dtype=jnp.float32).reshape(4 * 32, 1))
wide = pl.BlockSpec((32, 3 * 128), lambda i: (i, 0))
o, p = pl.pallas_call(
    kernel, grid=(4,),
    in_specs=[pl.BlockSpec((32, 128), lambda i: (i, 0)), pl.BlockSpec((32, 1), lambda i: (i, 0))],
    out_specs=[wide, wide],
    out_shape=[jax.ShapeDtypeStruct((4 * 32, 3 * 128), jnp.float32)] * 2)(x, m)
bits = lambda a: lax.bitcast_convert_type(a, jnp.int32)
print(bool(jnp.all(bits(o) == bits(p))), float(o[5, 7]) != float(o[37, 7]))
)"),
            "True True\n");
}

// A product, a row reduction and a fused chain write into the storage their result held the step
// (or loop iteration) before, only when nothing else holds it: here the previous step's product
// lives on in scratch (a whole-buffer store may hand it the value's storage) and is read after the
// new product is computed, and loop carries share the storage of what the body yielded last.
TEST(Executor, ProductsReductionsAndChainsReuseOnlyStorageNothingElseHolds) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_ref, y_ref, o_ref, r_ref, p_ref, prev, prev_max):
    x, y = x_ref[...], y_ref[...]
    s = jnp.dot(x, y, preferred_element_type=jnp.float32)
    top = jnp.max(s, axis=1, keepdims=True)

    @pl.when(pl.program_id(0) == 0)
    def _():
        prev[...] = jnp.zeros(prev.shape, jnp.float32)
        prev_max[...] = jnp.zeros(prev_max.shape, jnp.float32)

    o_ref[...] = s - prev[...]
    r_ref[...] = top - prev_max[...]
    prev[...] = s
    prev_max[...] = top
    power = lax.fori_loop(0, 3, lambda i, c: jnp.dot(c, y, preferred_element_type=jnp.float32), x)
    a, b = lax.fori_loop(
        0, 3, lambda i, c: (jnp.max(jnp.sin(x + c[0]), axis=1, keepdims=True), c[0]), (top, top))
    e, f = lax.fori_loop(0, 3, lambda i, c: (jnp.exp(c[0] * 0.5) - 1.0, c[0]), (x, x))
    p_ref[...] = jnp.concatenate([power, f, b], axis=1)


def loops(x, y, top):
    power = x
    for _ in range(3):
        power = jnp.dot(power, y, preferred_element_type=jnp.float32)
    a = b = top
    e = f = x
    for _ in range(3):
        a, b = jnp.max(jnp.sin(x + a), axis=1, keepdims=True), a
        e, f = jnp.exp(e * 0.5) - 1.0, e
    return jnp.concatenate([power, f, b], axis=1)


n = 64
x = jnp.sin(jnp.arange(4 * n * n, dtype=jnp.float32).reshape(4 * n, n) * 0.37)
y = jnp.cos(jnp.arange(n * n, dtype=jnp.float32).reshape(n, n) * 0.11) * 0.1
o, r, p = pl.pallas_call(
    kernel, grid=(4,),
    in_specs=[pl.BlockSpec((n, n), lambda i: (i, 0)), pl.BlockSpec((n, n), lambda i: (0, 0))],
    out_specs=[pl.BlockSpec((n, n), lambda i: (i, 0)), pl.BlockSpec((n, 1), lambda i: (i, 0)),
               pl.BlockSpec((n, 2 * n + 1), lambda i: (i, 0))],
    out_shape=[jax.ShapeDtypeStruct((4 * n, n), jnp.float32),
               jax.ShapeDtypeStruct((4 * n, 1), jnp.float32),
               jax.ShapeDtypeStruct((4 * n, 2 * n + 1), jnp.float32)],
    scratch_shapes=[pltpu.VMEM((n, n), jnp.float32), pltpu.VMEM((n, 1), jnp.float32)])(x, y)
s = jnp.dot(x, y, preferred_element_type=jnp.float32)
top = jnp.max(s, axis=1, keepdims=True)
want_o = s - jnp.concatenate([jnp.zeros((n, n), jnp.float32), s[:3 * n]])
want_r = top - jnp.concatenate([jnp.zeros((n, 1), jnp.float32), top[:3 * n]])
want_p = jnp.concatenate([loops(x[i * n:(i + 1) * n], y, top[i * n:(i + 1) * n])
                          for i in range(4)], axis=0)
print(bool(jnp.all(o == want_o)), bool(jnp.all(r == want_r)), bool(jnp.all(p == want_p)),
      float(jnp.abs(o[n:]).sum()) > 0)
)"),
            "True True True True\n");
}

// A whole load of a scratch buffer that a whole store refills before anything reads the buffer
// again hands the value the buffer's storage (ops consuming the value then write in place). The
// buffer's old contents stay readable through values that still hold them: the loaded value read
// again after the store, an earlier load of the buffer still live, a load whose buffer is read
// again before the store, a buffer stored from the very value loaded from it, a loop carry that
// shares the storage of the value loaded in the previous iteration. Over four steps, against the
// same arithmetic done eagerly.
TEST(Executor, LoadsTakingTheirBuffersStorageLeaveEveryValueIntact) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_ref, o_ref, a, b, c, d):
    @pl.when(pl.program_id(0) == 0)
    def _():
        for r in (a, b, c, d):
            r[...] = jnp.zeros(r.shape, jnp.float32)

    x = x_ref[...]
    va = a[...]
    a[...] = va * 0.5 + x
    early = b[...]
    vb = b[...]
    b[...] = vb * 2.0 - x
    vc = c[...]
    again = c[...]
    c[...] = vc + again + x
    d[...] = d[...]

    def body(i, carry):
        v = d[...]
        w = v * 0.5 + 1.0
        d[...] = w
        return v, carry[1] + carry[0] + w

    looped = lax.fori_loop(0, 3, body, (x, x))[1]
    o_ref[...] = jnp.concatenate([va, a[...], early, b[...], c[...], d[...] + vb + looped], axis=1)


n = 64
x = jnp.sin(jnp.arange(4 * n * n, dtype=jnp.float32).reshape(4 * n, n) * 0.37)
o = pl.pallas_call(
    kernel, grid=(4,), in_specs=[pl.BlockSpec((n, n), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((n, 6 * n), lambda i: (i, 0)),
    out_shape=jax.ShapeDtypeStruct((4 * n, 6 * n), jnp.float32),
    scratch_shapes=[pltpu.VMEM((n, n), jnp.float32)] * 4)(x)
a = b = c = d = jnp.zeros((n, n), jnp.float32)
want = []
for i in range(4):
    xi = x[i * n:(i + 1) * n]
    va, vb, vc = a, b, c
    a = va * 0.5 + xi
    b = vb * 2.0 - xi
    c = vc + vc + xi
    carry = (xi, xi)
    for _ in range(3):
        v = d
        w = v * 0.5 + 1.0
        d = w
        carry = (v, carry[1] + carry[0] + w)
    want.append(jnp.concatenate([va, a, vb, b, c, d + vb + carry[1]], axis=1))
print(bool(jnp.all(o == jnp.concatenate(want, axis=0))), float(jnp.abs(o).sum()) > 0)
)"),
            "True True\n");
}

// A chain of elementwise ops whose values die at the next op runs as one pass in row pieces
// (array::RunChain), with the row sum, max and min of its result computed along; in a loop body
// too. Each grid step's values equal the same ops run eagerly on the step's block, bit for bit,
// over values that overflow exp, underflow it to subnormals, and hold a NaN.
TEST(Executor, FusedElementwiseChainsEqualTheOpsRunApart) {
  EXPECT_EQ(
      KernelOutput(R"(
def kernel(x_ref, m_ref, o_ref, l_ref, t_ref):
    x = x_ref[...]
    p = jnp.exp(x * 0.5 - m_ref[...])
    o_ref[...] = p
    l_ref[...] = jnp.concatenate([jnp.sum(p, axis=1, keepdims=True),
                                  jnp.max(p, axis=1, keepdims=True),
                                  jnp.min(p, axis=-1, keepdims=True)], axis=1)
    t_ref[...] = lax.fori_loop(0, 2, lambda i, v: jnp.maximum(v - 1.0, -2.0) * 0.75, x)


n = 32
x = jnp.sin(jnp.arange(4 * n * 128, dtype=jnp.float32).reshape(4 * n, 128) * 0.37) * 200.0
x = x.at[37, 5].set(jnp.nan)
m = jnp.cos(jnp.arange(4 * n, dtype=jnp.float32).reshape(4 * n, 1)) * 3.0
block = pl.BlockSpec((n, 128), lambda i: (i, 0))
o, l, t = pl.pallas_call(
    kernel, grid=(4,), in_specs=[block, pl.BlockSpec((n, 1), lambda i: (i, 0))],
    out_specs=[block, pl.BlockSpec((n, 3), lambda i: (i, 0)), block],
    out_shape=[jax.ShapeDtypeStruct((4 * n, 128), jnp.float32),
               jax.ShapeDtypeStruct((4 * n, 3), jnp.float32),
               jax.ShapeDtypeStruct((4 * n, 128), jnp.float32)])(x, m)
bits = lambda a: lax.bitcast_convert_type(a, jnp.int32)
same = []
for i in range(4):
    xb, mb = x[i * n:(i + 1) * n], m[i * n:(i + 1) * n]
    p = jnp.exp(xb * 0.5 - mb)
    sums = jnp.concatenate([jnp.sum(p, axis=1, keepdims=True), jnp.max(p, axis=1, keepdims=True),
                            jnp.min(p, axis=1, keepdims=True)], axis=1)
    v = xb
    for _ in range(2):
        v = jnp.maximum(v - 1.0, -2.0) * 0.75
    rows = slice(i * n, (i + 1) * n)
    same += [bool(jnp.all(bits(o[rows]) == bits(p))), bool(jnp.all(bits(l[rows]) == bits(sums))),
             bool(jnp.all(bits(t[rows]) == bits(v)))]
print(same, int(jnp.sum(jnp.isnan(l))), int(jnp.sum(o == 0.0)) > 0, bool(jnp.any(jnp.isinf(o))))
)"),
      "[True, True, True, True, True, True, True, True, True, True, True, True] 3 True True\n");
}

}  // namespace
}  // namespace pz::tpu
