// Random numbers for the CUDA emitter: jax.random's primitives on threefry2x32 keys that a TPU
// kernel can record (random_seed, random_fold_in, random_bits and float32 uniform and normal
// steps) and the core's own generator (pltpu.prng_seed / prng_random_bits). Each element is one
// draw of a 64-bit counter, so any thread can compute any element; the helpers are
// RandomPrelude()'s (prelude.h), and they follow array/random.cpp step by step, so the draws
// agree with the emulator's bit for bit.
//
// The core generator's state (its key, the draws made since the seed, whether it is seeded) is a
// register of every thread, alike in all of them: a seed's operands and a draw's size are the
// same for the whole block. It starts unseeded at each chain, since a chain (a point of the
// "parallel" axes) runs on a CUDA block of its own: a draw before a seed in the chain is a fault.
#include <fmt/format.h>

#include "cuda/emit_internal.h"
#include "support/check.h"

namespace pz::cuda::detail {

void Emitter::EmitRandom(const Instr& instr) {
  Prim prim = kernel::PrimOf(instr.op);
  ValueId out = instr.results[0];
  const kernel::ValueType& type = TypeOf(out);
  // Mosaic lowers only 32-bit draws and float32 samples of them, and no split key (the trace
  // stops at the others, array::TpuLoweringLimit), so these are all a TPU kernel can reach.
  bool float32 = type.dtype == DType::kFloat32;
  if ((prim == Prim::kRandomUniform || prim == Prim::kRandomNormal) && !float32) {
    Fail(instr, fmt::format("the CUDA backend samples `{}` only in float32", array::PrimName(prim)),
         "sample float32 and convert the result");
  }
  // Word w of the key operand k.
  auto key_word = [&](size_t k, int w) {
    ValueId key = instr.operands[k];
    if (TypeOf(key).shape != Shape{2} || TypeOf(key).dtype != DType::kUInt32) {
      Fail(instr, fmt::format("`{}` needs a uint32 key of shape (2,) on the CUDA backend",
                              array::PrimName(prim)));
    }
    return "(unsigned)" + Elem(key, std::to_string(w));
  };
  auto scalar = [&](size_t k) {
    ValueId v = instr.operands[k];
    if (!IsScalar(v)) {
      Fail(instr,
           fmt::format("`{}` needs a scalar operand on the CUDA backend", array::PrimName(prim)));
    }
    return Name(v);
  };
  const Shape& shape = type.shape;
  std::string index = shape.empty() ? "0" : "pz_i";
  // The draws operand at the current element.
  auto draw = [&] {
    ValueId v = instr.operands[0];
    if (TypeOf(v).dtype != DType::kUInt32 || TypeOf(v).shape != shape) {
      Fail(instr, fmt::format("`{}` needs uint32 draws of its result's shape on the CUDA backend",
                              array::PrimName(prim)));
    }
    return "(unsigned)" + Elem(v, index);
  };
  // A bound of uniform, broadcast against the result (as numpy aligns shapes), in float32.
  auto bound = [&](size_t k) {
    ValueId v = instr.operands[k];
    DType d = TypeOf(v).dtype;
    if (IsScalar(v)) return Cast(d, DType::kFloat32, Name(v));
    std::string at = index;
    if (Count(TypeOf(v).shape) == 1) {
      at = "0";
    } else if (TypeOf(v).shape != shape) {
      at = Affine("", coords_, BroadcastStrides(TypeOf(v).shape, shape));
      if (at.empty()) at = "0";
    }
    return Cast(d, DType::kFloat32, Elem(v, at));
  };
  auto broadcasts = [&] {
    for (size_t k = 1; k < instr.operands.size(); ++k) {
      const Shape& s = TypeOf(instr.operands[k]).shape;
      if (!s.empty() && Count(s) > 1 && s != shape) return true;
    }
    return false;
  };
  ForEachElement(out, [&](Writer& w) -> std::string {
    coords_.clear();
    switch (prim) {
      case Prim::kRandomSeed:  // [0, seed mod 2^32]
        return fmt::format("{} == 0 ? 0u : (unsigned)({})", index, scalar(0));
      case Prim::kRandomFoldIn:
        return fmt::format("pz_fold_in({}, {}, (unsigned)({}), {})", key_word(0, 0), key_word(0, 1),
                           scalar(1), index);
      case Prim::kRandomBits:  // the low bits of each draw
        return Normalize(type.dtype, fmt::format("pz_draw({}, {}, (unsigned long long)({}))",
                                                 key_word(0, 0), key_word(0, 1), index));
      case Prim::kRandomUniform:
        if (!shape.empty() && broadcasts()) coords_ = Unravel(w, shape, "pz_i", "c");
        return fmt::format("pz_uniform_f32({}, {}, {})", draw(), bound(1), bound(2));
      case Prim::kRandomNormal:
        return fmt::format("pz_normal_f32({})", draw());
      default:
        break;
    }
    Fail(instr, fmt::format("the CUDA backend cannot run `{}` yet", array::PrimName(prim)),
         "run this kernel on the emulated TPU (without `--backend cuda`)");
  });
}

void Emitter::EmitPrng(const Instr& instr) {
  if (instr.op == Op::kPrngSeed) {
    // The key folds in each seed from (0, 0), as the emulator's generator does.
    w_.Open("{");
    w_.Line("unsigned pz_k0 = 0u, pz_k1 = 0u;");
    for (size_t k = 0; k < instr.operands.size(); ++k) {
      ValueId seed = instr.operands[k];
      if (!IsScalar(seed)) Fail(instr, "pltpu.prng_seed needs scalar seeds on the CUDA backend");
      w_.Line(fmt::format("pz_threefry(pz_k0, pz_k1, 0u, (unsigned)({}), &pz_k0, &pz_k1);",
                          Name(seed)));
    }
    w_.Line("pz_prng_k0 = pz_k0;");
    w_.Line("pz_prng_k1 = pz_k1;");
    w_.Line("pz_prng_drawn = 0;");
    w_.Line("pz_prng_seeded = true;");
    w_.Close();
    return;
  }
  ValueId out = instr.results[0];
  w_.Line(fmt::format("if (!pz_prng_seeded) {}",
                      Fault(instr, DeviceFault::kPrngUnseeded, {"pz_chain", "pz_s"})));
  ForEachElement(out, [&](Writer&) -> std::string {
    return fmt::format("(int)pz_draw(pz_prng_k0, pz_prng_k1, pz_prng_drawn + {})",
                       IsScalar(out) ? "0" : "(unsigned long long)pz_i");
  });
  w_.Line(fmt::format("pz_prng_drawn += {};", std::max<int64_t>(Count(TypeOf(out).shape), 1)));
}

}  // namespace pz::cuda::detail
