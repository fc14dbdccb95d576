// Array operations of a generated kernel body: each takes values from the pool, checks that it
// applies to their shapes and dtypes (returning false when it does not), and adds its result with
// the shape and dtype JAX gives it: elementwise math, comparisons, reductions, matmuls, shape
// changes, constants, random numbers, and operations a TPU kernel cannot lower (jnp.sort,
// jnp.cumsum).
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "kernel_generator.h"

namespace pz::fuzz {

bool Generator::Unary() {
  const Value a = PickValue();
  int choice = Pick(11);
  if (choice == 10) {
    DType to = PickDType();
    Add(fmt::format("{}.astype({})", a.name, DTypeName(to)), a.shape, to);
    return true;
  }
  if (choice < 6) {
    static const char* const kFloatOps[] = {"jnp.exp",  "jnp.log",        "jnp.tanh",
                                            "jnp.sqrt", "jax.nn.sigmoid", "jnp.floor"};
    DType dt = IsFloat(a.dtype) ? a.dtype : DType::kF32;
    Add(fmt::format("{}({})", kFloatOps[choice], Cast(a.name, a.dtype, dt)), a.shape, dt);
    return true;
  }
  DType dt = a.dtype == DType::kBool ? DType::kI32 : a.dtype;
  std::string e = Cast(a.name, a.dtype, dt);
  if (choice == 6) Add(fmt::format("jnp.abs({})", e), a.shape, dt);
  if (choice == 7) Add(fmt::format("-{}", e), a.shape, dt);
  if (choice == 8) Add(fmt::format("jax.nn.relu({})", e), a.shape, dt);
  if (choice == 9) Add(fmt::format("jnp.square({})", e), a.shape, dt);
  return true;
}

bool Generator::Binary() {
  const Value a = PickValue();
  std::optional<Value> b;
  if (Often(3)) b = PickBroadcastable(a.shape);
  Shape shape = b ? *Broadcast(a.shape, b->shape) : a.shape;
  if (a.dtype == DType::kBool && Often(2)) {
    static const char* const kLogical[] = {"&", "|", "^"};
    std::string rhs = b ? Cast(b->name, b->dtype, DType::kBool) : Literal(DType::kBool);
    Add(fmt::format("{} {} {}", a.name, kLogical[Pick(3)], rhs), shape, DType::kBool);
    return true;
  }
  DType dt = a.dtype == DType::kBool ? DType::kI32 : a.dtype;
  std::string lhs = Cast(a.name, a.dtype, dt);
  std::string rhs = b ? Cast(b->name, b->dtype, dt) : Literal(dt);
  static const char* const kOps[] = {"+", "-", "*", "/", "//", "%"};
  int choice = Pick(9);
  if (choice < 6) {
    DType result = choice == 3 && !IsFloat(dt) ? DType::kF32 : dt;
    Add(fmt::format("{} {} {}", lhs, kOps[choice], rhs), shape, result);
  } else if (choice < 8) {
    Add(fmt::format("jnp.{}({}, {})", choice == 6 ? "maximum" : "minimum", lhs, rhs), shape, dt);
  } else {
    Add(fmt::format("{} ** 2", lhs), a.shape, dt);
  }
  return true;
}

bool Generator::Compare() {
  const Value a = PickValue();
  std::optional<Value> b;
  if (Often(2)) b = PickBroadcastable(a.shape);
  Shape shape = b ? *Broadcast(a.shape, b->shape) : a.shape;
  DType dt = a.dtype == DType::kBool ? DType::kI32 : a.dtype;
  std::string rhs = b ? Cast(b->name, b->dtype, dt) : Literal(dt);
  static const char* const kOps[] = {"<", "<=", ">", ">=", "==", "!="};
  Add(fmt::format("{} {} {}", Cast(a.name, a.dtype, dt), kOps[Pick(6)], rhs), shape, DType::kBool);
  return true;
}

bool Generator::Where() {
  const Value c = PickValue();
  std::string cond = c.dtype == DType::kBool ? c.name : fmt::format("{} > 0", c.name);
  std::optional<Value> x = PickBroadcastable(c.shape);
  if (!x) return false;
  DType dt = x->dtype == DType::kBool ? DType::kF32 : x->dtype;
  Shape shape = *Broadcast(c.shape, x->shape);
  std::string other = Literal(dt);
  if (Rare(3)) {
    std::optional<Value> y = PickBroadcastable(shape);
    if (y) {
      other = Cast(y->name, y->dtype, dt);
      shape = *Broadcast(shape, y->shape);
    }
  }
  Add(fmt::format("jnp.where({}, {}, {})", cond, Cast(x->name, x->dtype, dt), other), shape, dt);
  return true;
}

bool Generator::Reduce() {
  const Value a = PickValue();
  if (a.shape.empty()) return false;
  int rank = static_cast<int>(a.shape.size());
  static const char* const kFns[] = {"sum", "max", "min", "mean", "argmax", "argmin"};
  int fn = Pick(6);
  DType dt = a.dtype;
  if (fn == 0 && dt == DType::kBool) dt = DType::kI32;
  if (fn == 3 && !IsFloat(dt)) dt = DType::kF32;
  if (fn >= 4) dt = DType::kI32;
  int axis = Pick(rank);
  bool all = fn < 4 && Rare(4);
  bool keepdims = fn < 4 && Rare(3);
  Shape shape;
  for (int d = 0; d < rank; ++d) {
    if (d != axis && !all) {
      shape.push_back(a.shape[d]);
    } else if (keepdims) {
      shape.push_back(1);
    }
  }
  std::string axis_text = all ? "None" : fmt::format("{}", Often(3) ? axis : axis - rank);
  std::string keep = keepdims ? ", keepdims=True" : "";
  if (fn < 3 && Rare(3)) {
    Add(fmt::format("{}.{}(axis={}{})", a.name, kFns[fn], axis_text, keep), shape, dt);
  } else {
    Add(fmt::format("jnp.{}({}, axis={}{})", kFns[fn], a.name, axis_text, keep), shape, dt);
  }
  return true;
}

bool Generator::Dot(bool first_matrix) {
  std::vector<const Value*> matrices;
  for (const Value& v : values_) {
    if (v.shape.size() == 2) matrices.push_back(&v);
  }
  if (matrices.empty()) return false;
  const Value a = *matrices[first_matrix ? 0 : Pick(static_cast<int>(matrices.size()))];
  DType dt = a.dtype == DType::kBool ? DType::kF32 : a.dtype;
  DType preferred = IsFloat(dt) ? DType::kF32 : DType::kI32;
  std::string lhs = Cast(a.name, a.dtype, dt);
  std::vector<const Value*> rhs_fits, rhs_transposed;
  for (const Value* m : matrices) {
    if (m->shape[0] == a.shape[1]) rhs_fits.push_back(m);
    if (m->shape[1] == a.shape[1]) rhs_transposed.push_back(m);
  }
  int form = Pick(4);
  if (form == 3 && !rhs_transposed.empty()) {
    const Value* b = rhs_transposed[Pick(static_cast<int>(rhs_transposed.size()))];
    Add(fmt::format("lax.dot_general({}, {}, (((1,), (1,)), ((), ())), "
                    "preferred_element_type={})",
                    lhs, Cast(b->name, b->dtype, dt), DTypeName(preferred)),
        {a.shape[0], b->shape[0]}, preferred);
    return true;
  }
  std::string rhs = fmt::format("{}.T", lhs);
  int64_t n = a.shape[0];
  if (!rhs_fits.empty() && Often(2)) {
    const Value* b = rhs_fits[Pick(static_cast<int>(rhs_fits.size()))];
    rhs = Cast(b->name, b->dtype, dt);
    n = b->shape[1];
  }
  if (form == 1) {
    Add(fmt::format("{} @ {}", lhs, rhs), {a.shape[0], n}, dt);
  } else {
    Add(fmt::format("jnp.dot({}, {}, preferred_element_type={})", lhs, rhs, DTypeName(preferred)),
        {a.shape[0], n}, preferred);
  }
  return true;
}

bool Generator::BatchedDot(bool first_matrix) {
  std::optional<Value> a;
  std::vector<const Value*> cubes;
  for (const Value& v : values_) {
    if (v.shape.size() == 3) cubes.push_back(&v);
  }
  if (first_matrix) {
    const Value* m = nullptr;
    for (const Value& v : values_) {
      if (v.shape.size() == 2 && v.shape[0] % 2 == 0) {
        m = &v;
        break;
      }
    }
    if (m == nullptr) return false;
    Shape split = {2, m->shape[0] / 2, m->shape[1]};
    a = Add(fmt::format("{}.reshape({})", m->name, ShapeText(split)), split, m->dtype);
  } else {
    if (cubes.empty()) return false;
    a = *cubes[Pick(static_cast<int>(cubes.size()))];
  }
  if (Elements(a->shape) > kMaxElements) return false;
  DType dt = a->dtype == DType::kBool ? DType::kF32 : a->dtype;
  DType preferred = IsFloat(dt) ? DType::kF32 : DType::kI32;
  std::string lhs = Cast(a->name, a->dtype, dt);
  int64_t batch = a->shape[0], m = a->shape[1], k = a->shape[2];
  // The other operand: a 3-D value of (batch, k, n), else the lhs's own transpose (batch, k, m).
  std::string rhs = fmt::format("jnp.swapaxes({}, 1, 2)", lhs);
  int64_t n = m;
  std::vector<const Value*> fits;
  for (const Value& v : values_) {
    if (v.shape.size() == 3 && v.shape[0] == batch && v.shape[1] == k) fits.push_back(&v);
  }
  if (!fits.empty() && Often(2)) {
    const Value* b = fits[Pick(static_cast<int>(fits.size()))];
    rhs = Cast(b->name, b->dtype, dt);
    n = b->shape[2];
  }
  if (batch * m * n > kMaxElements) return false;
  if (Often(2)) {
    Add(fmt::format("jnp.einsum(\"bmk,bkn->bmn\", {}, {}, preferred_element_type={})", lhs, rhs,
                    DTypeName(preferred)),
        {batch, m, n}, preferred);
  } else {
    Add(fmt::format("lax.dot_general({}, {}, (((2,), (1,)), ((0,), (0,))), "
                    "preferred_element_type={})",
                    lhs, rhs, DTypeName(preferred)),
        {batch, m, n}, preferred);
  }
  return true;
}

bool Generator::Reshape() {
  const Value a = PickValue();
  int64_t n = Elements(a.shape);
  std::vector<Shape> shapes = {{n}};
  Shape ones = a.shape;
  ones.insert(ones.begin(), 1);
  shapes.push_back(ones);
  Shape squeezed;
  for (int64_t d : a.shape) {
    if (d != 1) squeezed.push_back(d);
  }
  shapes.push_back(squeezed);
  for (int64_t f = 2; f < n && f <= 128; ++f) {
    if (n % f == 0) shapes.push_back({f, n / f});
  }
  Shape to = shapes[Pick(static_cast<int>(shapes.size()))];
  if (Often(2)) {
    Add(fmt::format("{}.reshape({})", a.name, ShapeText(to)), to, a.dtype);
  } else {
    Add(fmt::format("jnp.reshape({}, {})", a.name, ShapeText(to)), to, a.dtype);
  }
  return true;
}

bool Generator::Transpose() {
  const Value a = PickValue();
  int rank = static_cast<int>(a.shape.size());
  if (rank < 2) return false;
  Shape shape = a.shape;
  switch (Pick(3)) {
    case 0:
      std::reverse(shape.begin(), shape.end());
      Add(a.name + ".T", shape, a.dtype);
      return true;
    case 1: {
      std::swap(shape.front(), shape.back());
      Add(fmt::format("jnp.swapaxes({}, 0, -1)", a.name), shape, a.dtype);
      return true;
    }
    default: {
      std::vector<int> perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      for (int k = rank - 1; k > 0; --k) std::swap(perm[k], perm[Pick(k + 1)]);
      for (int k = 0; k < rank; ++k) shape[k] = a.shape[perm[k]];
      Add(fmt::format("jnp.transpose({}, {})", a.name, Tuple(perm)), shape, a.dtype);
      return true;
    }
  }
}

bool Generator::Expand() {
  const Value a = PickValue();
  int rank = static_cast<int>(a.shape.size());
  Shape shape = a.shape;
  switch (Pick(4)) {
    case 0:
      if (rank == 1) {
        Add(a.name + "[:, None]", {a.shape[0], 1}, a.dtype);
      } else {
        shape.insert(shape.begin(), 1);
        Add(a.name + "[None]", shape, a.dtype);
      }
      return true;
    case 1: {
      if (rank >= 3) return false;
      int axis = Pick(rank + 1);
      shape.insert(shape.begin() + axis, 1);
      Add(fmt::format("jnp.expand_dims({}, {})", a.name, axis), shape, a.dtype);
      return true;
    }
    default: {
      bool grown = false;
      for (int64_t& d : shape) {
        if (d == 1 && Often(2)) {
          d = 2 + Pick(3);
          grown = true;
        }
      }
      if (!grown) shape.insert(shape.begin(), 2 + Pick(2));
      if (shape.size() > 4 || Elements(shape) > kMaxElements) return false;
      Add(fmt::format("jnp.broadcast_to({}, {})", a.name, ShapeText(shape)), shape, a.dtype);
      return true;
    }
  }
}

bool Generator::Concatenate() {
  const Value a = PickValue();
  int rank = static_cast<int>(a.shape.size());
  if (rank == 0) return false;
  int axis = Pick(rank);
  std::vector<const Value*> fits;
  for (const Value& v : values_) {
    if (v.shape.size() != a.shape.size()) continue;
    bool fit = true;
    for (int d = 0; d < rank; ++d) fit &= d == axis || v.shape[d] == a.shape[d];
    if (fit) fits.push_back(&v);
  }
  const Value* b = fits[Pick(static_cast<int>(fits.size()))];  // `a` itself always fits
  Shape shape = a.shape;
  shape[axis] += b->shape[axis];
  if (Elements(shape) > kMaxElements) return false;
  Add(fmt::format("jnp.concatenate([{}, {}], axis={})", a.name, Cast(b->name, b->dtype, a.dtype),
                  axis),
      shape, a.dtype);
  return true;
}

bool Generator::SliceValue() {
  const Value a = PickValue();
  if (a.shape.empty()) return false;
  Shape shape;
  std::string index = Index(a.shape, shape, /*ref=*/false);
  if (index == "[...]") return false;
  Add(a.name + index, shape, a.dtype);
  return true;
}

// Operations TPU kernels do not support (or that the engine may not lower).
bool Generator::Unsupported() {
  const Value a = PickValue();
  if (a.shape.empty()) return false;
  switch (Pick(3)) {
    case 0:
      Add(fmt::format("jnp.sort({}, axis=-1)", a.name), a.shape, a.dtype);
      break;
    case 1:
      Add(fmt::format("jnp.cumsum({}, axis=0)", a.name), a.shape,
          a.dtype == DType::kBool ? DType::kI32 : a.dtype);
      break;
    default:
      Add(fmt::format("jnp.argsort({}, axis=-1)", a.name), a.shape, DType::kI32);
  }
  return true;
}

bool Generator::Constant() {
  const Value a = PickValue();
  switch (Pick(3)) {
    case 0:
      if (a.shape.empty()) return false;
      Add(fmt::format("lax.broadcasted_iota(jnp.int32, {}, {})", ShapeText(a.shape),
                      Pick(static_cast<int>(a.shape.size()))),
          a.shape, DType::kI32);
      return true;
    case 1: {
      DType dt = PickDType();
      Add(fmt::format("jnp.full({}, {}, {})", ShapeText(a.shape), Literal(dt), DTypeName(dt)),
          a.shape, dt);
      return true;
    }
    default:
      Add(fmt::format("jnp.zeros_like({})", a.name), a.shape, a.dtype);
      return true;
  }
}

// Random numbers of a picked value's shape: jax.random from a key made in the kernel (its seed a
// literal or a program id, sometimes folded with one), or the core's own generator.
bool Generator::Random() {
  const Value a = PickValue();
  std::string shape = ShapeText(a.shape);
  auto program_id = [&] {
    return fmt::format("pl.program_id({})", Pick(static_cast<int>(grid_.size())));
  };
  std::string seed = !grid_.empty() && Often(2) ? program_id() : std::to_string(Pick(100));
  if (Rare(4)) {
    Line(fmt::format("pltpu.prng_seed({})", seed));
    switch (Pick(3)) {
      case 0:
        Add(fmt::format("pltpu.stateful_uniform({}, minval=-1.0)", shape), a.shape, DType::kF32);
        return true;
      case 1:
        Add(fmt::format("pltpu.stateful_normal({})", shape), a.shape, DType::kF32);
        return true;
      default:
        Add(fmt::format("pltpu.prng_random_bits({})", shape), a.shape, DType::kI32);
        return true;
    }
  }
  std::string key = fmt::format("jax.random.key({})", seed);
  if (!grid_.empty() && Often(2)) {
    key = fmt::format("jax.random.fold_in({}, {})", key, program_id());
  }
  switch (Pick(5)) {
    case 0:
      Add(fmt::format("jax.random.uniform({}, {}, minval=-2.0, maxval=3.0)", key, shape), a.shape,
          DType::kF32);
      return true;
    case 1:
      Add(fmt::format("jax.random.normal({}, {})", key, shape), a.shape, DType::kF32);
      return true;
    case 2:
      Add(fmt::format("jax.random.bernoulli({}, 0.3, {})", key, shape), a.shape, DType::kBool);
      return true;
    case 3:
      Add(fmt::format("jax.random.bits({}, {}).astype(jnp.int32)", key, shape), a.shape,
          DType::kI32);
      return true;
    default: {  // 16-bit draws, which a TPU cannot lower
      DType half = Often(3) ? DType::kBF16 : DType::kF16;
      Add(fmt::format("jax.random.uniform({}, {}, {})", key, shape, DTypeName(half)), a.shape,
          half);
      return true;
    }
  }
}

}  // namespace pz::fuzz
