// The kernel body of a generated program: parameters, loads, stores fitted to their refs,
// control flow (pl.when, lax.fori_loop, lax.cond) and the choice of each statement; the array
// operations themselves are in kernel_ops.cpp. A few choices deliberately break a rule (a store
// of the wrong shape or dtype, an index out of range) so error paths run too.
#include <fmt/format.h>

#include <algorithm>

#include "kernel_generator.h"

namespace pz::fuzz {

void Generator::Line(const std::string& text) {
  body_ += std::string(4 * indent_, ' ') + text + "\n";
}

std::string Generator::NewName(const char* prefix) {
  return fmt::format("{}{}", prefix, next_name_++);
}

Value& Generator::Add(std::string expr, Shape shape, DType dtype) {
  std::string name = NewName("v");
  Line(name + " = " + expr);
  values_.push_back({.name = name, .shape = std::move(shape), .dtype = dtype});
  return values_.back();
}

const Value& Generator::PickValue() {
  if (values_.empty()) Add("jnp.ones((2, 4), jnp.float32)", {2, 4}, DType::kF32);
  // Recent values more often, so operations chain.
  int n = static_cast<int>(values_.size());
  if (Often(2)) return values_[n - 1 - Pick(std::min(n, 3))];
  return values_[Pick(n)];
}

std::optional<Value> Generator::PickBroadcastable(const Shape& shape) {
  std::vector<const Value*> fits;
  for (const Value& v : values_) {
    std::optional<Shape> out = Broadcast(shape, v.shape);
    if (out && Elements(*out) <= kMaxElements) fits.push_back(&v);
  }
  if (fits.empty()) return std::nullopt;
  return *fits[Pick(static_cast<int>(fits.size()))];
}

std::string Generator::Literal(DType dtype) {
  static const char* const kFloats[] = {"2.0", "0.5", "-1.5", "3.0", "1e-3", "0.0"};
  static const char* const kInts[] = {"2", "3", "-1", "0", "7"};
  static const char* const kUnsigned[] = {"2", "3", "1", "0", "7"};
  switch (dtype) {
    case DType::kF32:
    case DType::kBF16:
    case DType::kF16:
      return kFloats[Pick(6)];
    case DType::kI32:
    case DType::kI16:
    case DType::kI8:
      return kInts[Pick(5)];
    case DType::kU8:
    case DType::kU16:
    case DType::kU32:
      return kUnsigned[Pick(5)];
    case DType::kBool:
      return Often(2) ? "True" : "False";
  }
  return "0";
}

// `value` reshaped, reduced or broadcast to `shape`, then cast to `dtype`.
std::string Generator::Fit(const Value& value, const Shape& shape, DType dtype) {
  std::string e = value.name;
  Shape s = value.shape;
  DType dt = value.dtype;
  if (s != shape && Elements(s) == Elements(shape) && Often(2)) {
    e = fmt::format("{}.reshape({})", e, ShapeText(shape));
    s = shape;
  }
  bool sum = Rare(3);
  const char* reduce = sum ? "sum" : "max";
  DType reduced = sum && dt == DType::kBool ? DType::kI32 : dt;  // jnp.sum of bool is int32
  while (s.size() > shape.size()) {
    e = fmt::format("jnp.{}({}, axis=0)", reduce, e);
    s.erase(s.begin());
    dt = reduced;
  }
  size_t offset = shape.size() - s.size();
  std::vector<int> axes;
  for (size_t d = 0; d < s.size(); ++d) {
    if (s[d] != 1 && s[d] != shape[d + offset]) {
      axes.push_back(static_cast<int>(d));
      s[d] = 1;
    }
  }
  if (!axes.empty()) {
    e = fmt::format("jnp.{}({}, axis={}, keepdims=True)", reduce, e, Tuple(axes));
    dt = reduced;
  }
  if (s != shape) e = fmt::format("jnp.broadcast_to({}, {})", e, ShapeText(shape));
  return Cast(e, dt, dtype);
}

// A scalar index into a dimension of `extent`: static, or derived from the grid position.
std::string Generator::ScalarIndex(int64_t extent) {
  if (!grid_.empty() && Often(3) && Pick(2) == 0) {
    return fmt::format("pl.program_id({}) % {}", Pick(static_cast<int>(grid_.size())), extent);
  }
  if (Rare(40)) return fmt::format("{}", extent);  // out of range
  return fmt::format("{}", Pick(static_cast<int>(std::min<int64_t>(extent, 64))));
}

// An index of a ref (`ref`: pl.ds allowed) or array of `shape`; `result` gets the indexed shape.
std::string Generator::Index(const Shape& shape, Shape& result, bool ref) {
  result.clear();
  if (shape.empty() || Often(3)) {
    result = shape;
    return "[...]";
  }
  std::vector<std::string> parts;
  for (int64_t n : shape) {
    int small = static_cast<int>(std::min<int64_t>(n, 64));
    switch (Pick(6)) {
      case 1: {
        int64_t a = Pick(small);
        int64_t b = a + 1 + Pick(static_cast<int>(std::min<int64_t>(n - a, 64)));
        parts.push_back(fmt::format("{}:{}", a, b));
        result.push_back(b - a);
        break;
      }
      case 2:
        if (Often(2)) {
          parts.push_back(fmt::format("{}", Pick(small)));  // an int drops the dimension
          break;
        }
        parts.push_back(":");
        result.push_back(n);
        break;
      case 3: {
        if (!ref) {
          parts.push_back("::2");
          result.push_back((n + 1) / 2);
          break;
        }
        int64_t size = 1 + Pick(small);
        int64_t room = n - size + 1;
        std::string start = fmt::format("{}", Pick(static_cast<int>(std::min<int64_t>(room, 64))));
        if (!grid_.empty() && Often(2)) {
          start = fmt::format("pl.program_id({}) % {}", Pick(static_cast<int>(grid_.size())), room);
        }
        if (Rare(40)) start = fmt::format("{}", room);  // one past the last valid start
        parts.push_back(fmt::format("pl.ds({}, {})", start, size));
        result.push_back(size);
        break;
      }
      case 4:
        if (n > 1) {
          parts.push_back("1:");
          result.push_back(n - 1);
          break;
        }
        [[fallthrough]];
      default:
        parts.push_back(":");
        result.push_back(n);
    }
  }
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

// A scalar boolean: a grid-position test or a test of a value.
std::string Generator::Predicate() {
  if (!grid_.empty() && Often(2)) {
    int axis = Pick(static_cast<int>(grid_.size()));
    switch (Pick(3)) {
      case 0:
        return fmt::format("pl.program_id({}) == 0", axis);
      case 1:
        return fmt::format("pl.program_id({}) == pl.num_programs({}) - 1", axis, axis);
      default:
        return fmt::format("pl.program_id({}) < {}", axis, 1 + Pick(3));
    }
  }
  const Value& v = PickValue();
  if (v.dtype == DType::kBool) return v.shape.empty() ? v.name : fmt::format("jnp.any({})", v.name);
  return v.shape.empty() ? fmt::format("{} > 0", v.name) : fmt::format("jnp.sum({}) > 0", v.name);
}

bool Generator::ProgramId() {
  if (grid_.empty()) return false;
  int axis = Pick(static_cast<int>(grid_.size()));
  if (Often(2)) {
    Add(fmt::format("pl.program_id({})", axis), {}, DType::kI32);
  } else {
    Add(fmt::format("pl.program_id({}) * pl.num_programs({}) + 1", axis, axis), {}, DType::kI32);
  }
  return true;
}

bool Generator::Load() {
  const RefInfo ref = refs_[Pick(static_cast<int>(refs_.size()))];
  if (ref.smem) {
    std::vector<std::string> index;
    for (int64_t n : ref.shape) index.push_back(ScalarIndex(n));
    Add(fmt::format("{}[{}]", ref.name, fmt::join(index, ", ")), {}, ref.dtype);
    return true;
  }
  Shape shape;
  std::string index = Index(ref.shape, shape, /*ref=*/true);
  Add(ref.name + index, shape, ref.dtype);
  return true;
}

bool Generator::Store(bool top_level) {
  std::vector<const RefInfo*> targets;
  for (const RefInfo& r : refs_) {
    if (r.output || r.name[0] == 't' || Rare(8)) targets.push_back(&r);
  }
  if (targets.empty()) return false;
  const RefInfo ref = *targets[Pick(static_cast<int>(targets.size()))];
  const Value v = PickValue();
  if (ref.smem) {
    std::vector<std::string> index;
    for (int64_t n : ref.shape) index.push_back(ScalarIndex(n));
    Line(fmt::format("{}[{}] = {}", ref.name, fmt::join(index, ", "), Fit(v, {}, ref.dtype)));
    return true;
  }
  Shape region;
  std::string index = Index(ref.shape, region, /*ref=*/true);
  std::string value = Rare(32) ? v.name : Fit(v, region, Rare(48) ? PickDType() : ref.dtype);
  bool augmented = ref.dtype != DType::kBool && Rare(5);
  Line(fmt::format("{}{} {}= {}", ref.name, index, augmented ? "+" : "", value));
  if (top_level && ref.output && index == "[...]") stored_[ref.output_index] = true;
  return true;
}

bool Generator::When(int depth) {
  Line(fmt::format("@pl.when({})", Predicate()));
  Line("def _():");
  ++indent_;
  size_t mark = values_.size();
  for (int k = Pick(3); k > 0; --k) Statement(depth + 1);
  Store(false);
  values_.resize(mark);
  --indent_;
  return true;
}

bool Generator::ForiLoop(int depth) {
  const Value init = PickValue();
  std::string body = NewName("body");
  std::string index = NewName("k");
  std::string carry = NewName("c");
  Line(fmt::format("def {}({}, {}):", body, index, carry));
  ++indent_;
  size_t mark = values_.size();
  values_.push_back({.name = index, .shape = {}, .dtype = DType::kI32});
  values_.push_back({.name = carry, .shape = init.shape, .dtype = init.dtype});
  for (int k = 1 + Pick(3); k > 0; --k) Statement(depth + 1);
  Line("return " + Fit(values_.back(), init.shape, init.dtype));
  values_.resize(mark);
  --indent_;
  Add(fmt::format("lax.fori_loop(0, {}, {}, {}{})", 1 + Pick(4), body, init.name,
                  Rare(3) ? ", unroll=True" : ""),
      init.shape, init.dtype);
  return true;
}

bool Generator::Cond() {
  const Value v = PickValue();
  std::string pred = Predicate();
  auto alternative = [&](const std::string& x) -> std::string {
    if (v.dtype == DType::kBool) return Often(2) ? "jnp.logical_not(" + x + ")" : "~" + x;
    switch (Pick(3)) {
      case 0:
        return "-" + x;
      case 1:
        return "jnp.zeros_like(" + x + ")";
      default:
        return x + (IsFloat(v.dtype) ? " * 2.0" : " + 1");
    }
  };
  if (Often(2)) {
    Add(fmt::format("lax.cond({}, lambda a: {}, lambda a: a, {})", pred, alternative("a"), v.name),
        v.shape, v.dtype);
  } else {
    Add(fmt::format("lax.cond({}, lambda: {}, lambda: {})", pred, v.name, alternative(v.name)),
        v.shape, v.dtype);
  }
  return true;
}

void Generator::Statement(int depth) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    bool done = false;
    switch (Pick(26)) {
      case 0:
      case 1:
        done = Load();
        break;
      case 2:
      case 3:
        done = Unary();
        break;
      case 4:
      case 5:
      case 6:
        done = Binary();
        break;
      case 7:
        done = Compare();
        break;
      case 8:
        done = Where();
        break;
      case 9:
      case 10:
        done = Reduce();
        break;
      case 11:
        done = Dot();
        break;
      case 12:
        done = Often(2) ? Dot() : BatchedDot();
        break;
      case 13:
        done = Reshape();
        break;
      case 14:
        done = Transpose();
        break;
      case 15:
        done = Expand();
        break;
      case 16:
        done = Concatenate();
        break;
      case 17:
        done = SliceValue();
        break;
      case 18:
        done = ProgramId();
        break;
      case 19:
      case 20:
        done = Store(depth == 0);
        break;
      case 21:
        done = depth < 2 && When(depth);
        break;
      case 22:
        done = depth < 2 && ForiLoop(depth);
        break;
      case 23:
        done = Cond();
        break;
      case 24:
        done = Rare(2) ? Random() : Constant();
        break;
      default:
        done = Rare(4) && Unsupported();
    }
    if (done) return;
  }
}

std::string Generator::KernelBody() {
  bool any_hbm = false;
  for (const Operand& op : inputs_) any_hbm |= op.kind == OperandKind::kAny;
  uses_semaphore_ = any_hbm && Rare(2);
  if (prefetch_) {
    params_.push_back("s_ref");
    refs_.push_back({.name = "s_ref",
                     .shape = {static_cast<int64_t>(prefetch_table_.size())},
                     .dtype = DType::kI32,
                     .smem = true});
  }
  for (const Operand& op : inputs_) {
    params_.push_back(op.name + "_ref");
    if (op.kind == OperandKind::kAny) continue;  // read through its buffer
    refs_.push_back({.name = op.name + "_ref",
                     .shape = op.ref,
                     .dtype = op.dtype,
                     .smem = op.kind == OperandKind::kSmem});
  }
  for (size_t k = 0; k < outputs_.size(); ++k) {
    const Operand& op = outputs_[k];
    params_.push_back(op.name + "_ref");
    std::string name = op.kind == OperandKind::kAny ? "b" + op.name + "_ref" : op.name + "_ref";
    refs_.push_back({.name = name,
                     .shape = op.ref,
                     .dtype = op.dtype,
                     .smem = op.kind == OperandKind::kSmem,
                     .output = true,
                     .output_index = static_cast<int>(k)});
  }
  stored_.assign(outputs_.size(), false);
  for (const Scratch& s : scratch_) {
    params_.push_back(s.name);
    refs_.push_back({.name = s.name, .shape = s.shape, .dtype = s.dtype, .smem = s.smem});
  }
  for (const Operand& op : outputs_) {
    if (op.kind == OperandKind::kAny) params_.push_back("b" + op.name + "_ref");
  }
  for (const Operand& op : inputs_) {
    if (op.kind != OperandKind::kAny) continue;
    std::string buffer = "b" + op.name + "_ref";
    params_.push_back(buffer);
    refs_.push_back({.name = buffer, .shape = op.array, .dtype = op.dtype});
  }
  if (uses_semaphore_) params_.push_back("sem");

  // Copy pl.ANY inputs in, then load every VMEM input once.
  for (const Operand& op : inputs_) {
    if (op.kind != OperandKind::kAny) continue;
    if (uses_semaphore_) {
      std::string copy = NewName("copy");
      Line(fmt::format("{} = pltpu.make_async_copy({}_ref, b{}_ref, sem)", copy, op.name, op.name));
      Line(copy + ".start()");
      Line(copy + ".wait()");
    } else {
      Line(fmt::format("pltpu.sync_copy({}_ref, b{}_ref)", op.name, op.name));
    }
  }
  std::string first_ref;  // the ref the first value was loaded from
  for (const RefInfo& ref : refs_) {
    if (ref.output || ref.smem || ref.name[0] == 't') continue;
    if (first_ref.empty()) first_ref = ref.name;
    Add(ref.name + "[...]", ref.shape, ref.dtype);
  }
  // A product of the matrix input first (it is the first 2-D value, and often the only one):
  // as it is, split into batches, or added into the accumulator.
  std::optional<Value> product;
  // The accumulator read only at the last step of the last axis (when the outputs' blocks do
  // not move along it), so that its sum may stay in registers across the steps; else at once.
  bool read_late = false;
  if (accumulator_) {
    const Value m = values_.front();
    size_t last = grid_.size() - 1;
    if (grid_.empty()) {
      Line("tacc_ref[...] = jnp.zeros((128, 128), jnp.float32)");
    } else {
      Line(fmt::format("@pl.when(pl.program_id({}) == 0)", last));
      Line("def _():");
      Line("    tacc_ref[...] = jnp.zeros((128, 128), jnp.float32)");
    }
    if (Often(2)) {
      Line(fmt::format("tacc_ref[...] += jnp.dot({0}, {0}.T, preferred_element_type=jnp.float32)",
                       m.name));
    } else {
      // The block read by the product itself: its loads are folded into the product, which then
      // copies the block's runs from where the ref lies (in place in HBM, when it is too large
      // for shared memory) into its staged tiles.
      Line(
          fmt::format("tacc_ref[...] += lax.dot_general({0}[...], {0}[...], (((1,), (1,)), "
                      "((), ())), preferred_element_type=jnp.float32)",
                      first_ref));
    }
    read_late = !grid_.empty() && output_axes_ <= static_cast<int>(last) && Often(2);
    if (!read_late) product = Add("tacc_ref[...]", {128, 128}, DType::kF32);
  } else if (options_.matrices && (Rare(3) ? BatchedDot(true) : Dot(true))) {
    product = values_.back();
  }
  for (int k = 1 + Pick(12); k > 0; --k) Statement(0);
  // The product reaches the first output (fitted to it), so that no backend may drop it.
  if (read_late && !outputs_.empty() && outputs_[0].kind != OperandKind::kAny &&
      outputs_[0].kind != OperandKind::kSmem) {
    size_t last = grid_.size() - 1;
    Line(fmt::format("@pl.when(pl.program_id({0}) == pl.num_programs({0}) - 1)", last));
    Line("def _():");
    ++indent_;
    const Value& sum = Add("tacc_ref[...]", {128, 128}, DType::kF32);
    Line(fmt::format("o0_ref[...] = {}", Fit(sum, outputs_[0].ref, outputs_[0].dtype)));
    --indent_;
    values_.pop_back();
    stored_[0] = true;
  }
  if (product && !outputs_.empty() && outputs_[0].kind != OperandKind::kAny &&
      outputs_[0].kind != OperandKind::kSmem) {
    Line(fmt::format("o0_ref[...] = {}", Fit(*product, outputs_[0].ref, outputs_[0].dtype)));
    stored_[0] = true;
  }
  for (size_t k = 0; k < outputs_.size(); ++k) {
    const Operand& op = outputs_[k];
    if (!stored_[k] && Often(16)) {
      std::string name = op.kind == OperandKind::kAny ? "b" + op.name + "_ref" : op.name + "_ref";
      if (op.kind == OperandKind::kSmem) {
        Line(fmt::format("{}[0] = {}", name, Fit(PickValue(), {}, op.dtype)));
      } else {
        Line(fmt::format("{}[...] = {}", name, Fit(PickValue(), op.ref, op.dtype)));
      }
    }
    if (op.kind == OperandKind::kAny) {
      Line(fmt::format("pltpu.sync_copy(b{}_ref, {}_ref)", op.name, op.name));
    }
  }
  if (body_.empty()) Line("pass");  // every statement was skipped
  return body_;
}

}  // namespace pz::fuzz
