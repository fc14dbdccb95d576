// Refs inside a kernel: indexing (ints, slices, `...`, pl.ds with traced starts), `.at[...]`
// views, loads and stores with JAX's rules, and the TPU memory-space rules checked at trace time.
#include <fmt/format.h>

#include "array/elementwise.h"
#include "kernel/records.h"
#include "kernel/trace.h"

namespace pz::kernel {

using eval::Interpreter;
using eval::Value;

namespace {

std::string ShapeString(const array::Shape& shape) { return array::ShapeToString(shape); }

// `.at` of a ref: indexing it makes a view.
class RefAtObject final : public eval::Object {
 public:
  explicit RefAtObject(std::shared_ptr<RefObject> ref)
      : Object(eval::ObjectKind::kExtension), ref_(std::move(ref)) {}
  std::string_view type_name() const override { return "RefAt"; }
  std::optional<Value> GetItem(Interpreter& interp, const Value& key) override {
    Indexer indexer = ref_->ParseIndex(key);
    for (const DimIndex& dim : indexer) {
      if (!dim.is_int && dim.stride != 1 && ref_->trace->options().tpu_rules) {
        interp.RaiseWithNotes(interp.types().value_error,
                              "Strided slices of references are unsupported.",
                              {"a strided view cannot be made on a TPU; load with the stride "
                               "instead: `x_ref[pl.ds(start, size, stride=s)]`"});
      }
    }
    RefPath path = ref_->path;
    path.indexers.push_back(indexer);
    array::Shape shape = IndexedShape(ref_->shape, {indexer});
    return Value(std::make_shared<RefObject>(ref_->trace, std::move(path), std::move(shape)));
  }

 private:
  std::shared_ptr<RefObject> ref_;
};

}  // namespace

std::string RefObject::Repr(Interpreter& interp) const {
  return fmt::format("Ref<{} {}>", MemorySpaceName(base().space),
                     TypeToString({.shape = shape, .dtype = base().dtype}));
}

std::optional<Value> RefObject::GetAttr(Interpreter& interp, std::string_view name) {
  if (name == "shape") {
    std::vector<Value> dims;
    for (int64_t d : shape) dims.push_back(Value::Int(d));
    return eval::MakeTuple(std::move(dims));
  }
  if (name == "dtype") return Value(std::make_shared<eval::DTypeObject>(base().dtype));
  if (name == "ndim") return Value::Int(static_cast<int64_t>(shape.size()));
  if (name == "size") return Value::Int(array::NumElements(shape));
  if (name == "at") {
    return Value(
        std::make_shared<RefAtObject>(std::static_pointer_cast<RefObject>(shared_from_this())));
  }
  return std::nullopt;
}

std::optional<Value> RefObject::GetItem(Interpreter& interp, const Value& key) { return Load(key); }

bool RefObject::SetItem(Interpreter& interp, const Value& key, const Value& value) {
  Store(key, value);
  return true;
}

std::optional<bool> RefObject::Truthy(Interpreter& interp) { return true; }

Indexer RefObject::ParseIndex(const Value& key) {
  Interpreter& interp = trace->interp();
  const eval::BuiltinTypes& t = interp.types();
  std::vector<Value> items;
  if (auto* tuple = key.as<eval::TupleObject>()) {
    items = tuple->items;
  } else {
    items.push_back(key);
  }
  size_t ellipses = 0;
  for (const Value& item : items) ellipses += item.is(eval::ObjectKind::kEllipsis) ? 1 : 0;
  if (ellipses > 1) interp.Raise(t.value_error, "Only one ellipsis is supported.");
  if (items.size() - ellipses > shape.size()) {
    interp.Raise(t.value_error,
                 fmt::format("`indices` must not be longer than `shape`: {} indices for a ref "
                             "of shape {}",
                             items.size() - ellipses, ShapeString(shape)));
  }
  // Expand `...` (or pad at the end) with full slices.
  std::vector<Value> expanded;
  for (const Value& item : items) {
    if (item.is(eval::ObjectKind::kEllipsis)) {
      for (size_t k = 0; k < shape.size() - (items.size() - 1); ++k) expanded.push_back(Value());
    } else {
      expanded.push_back(item);
    }
  }
  while (expanded.size() < shape.size()) expanded.push_back(Value());
  std::vector<bool> is_fill(expanded.size(), false);
  {
    // Entries added for `...` / padding are `None` here; a user's own `None` is rejected below,
    // so mark which Nones are fill.
    size_t pos = 0;
    for (const Value& item : items) {
      if (item.is(eval::ObjectKind::kEllipsis)) {
        for (size_t k = 0; k < shape.size() - (items.size() - 1); ++k) is_fill[pos++] = true;
      } else {
        ++pos;
      }
    }
    for (; pos < expanded.size(); ++pos) is_fill[pos] = true;
  }

  Indexer indexer;
  for (size_t d = 0; d < expanded.size(); ++d) {
    const Value& item = expanded[d];
    int64_t n = shape[d];
    DimIndex dim;
    if (is_fill[d]) {
      dim.size = n;
      indexer.push_back(dim);
      continue;
    }
    auto static_int = [&](const Value& v) -> std::optional<int64_t> {
      if (v.is_bool()) return std::nullopt;
      if (v.is_int()) return v.as_int();
      if (auto* a = v.as<eval::ArrayObject>();
          a != nullptr && a->value.rank() == 0 && array::IsInteger(a->value.dtype())) {
        return a->value.GetInt(0);
      }
      return std::nullopt;
    };
    auto traced_int = [&](const Value& v, std::string_view what) -> std::optional<ValueId> {
      auto* tracer = v.as<TracerObject>();
      if (tracer == nullptr) return std::nullopt;
      ValueId id = trace->Lift(v, what);
      const ValueType& type = trace->type(id);
      if (!type.shape.empty()) {
        interp.RaiseWithNotes(t.not_implemented_error,
                              fmt::format("Cannot do int indexing on TPU: the index has shape {}",
                                          ShapeString(type.shape)),
                              {"index with a scalar or `pl.ds(start, size)`; gathers with an "
                               "index array are not supported on refs"});
      }
      if (!array::IsInteger(type.dtype)) {
        interp.Raise(t.type_error, fmt::format("{} must be an integer, got {}", what,
                                               array::DTypeName(type.dtype)));
      }
      return id;
    };
    if (std::optional<int64_t> i = static_int(item)) {
      if (*i < 0) {
        interp.RaiseWithNotes(
            t.index_error,
            fmt::format("Out of bound indexer: idx={}, dim={} (dimension {} of {})", *i, n, d,
                        base().name),
            {"negative indices do not count from the end on refs (on a TPU they read before "
             "the buffer); write the position explicitly, e.g. `x_ref[n - 1]`"});
      }
      if (*i >= n) {
        interp.Raise(t.index_error, fmt::format("Out of bound indexer: idx={}, dim={} (dimension "
                                                "{} of {})",
                                                *i, n, d, base().name));
      }
      dim.is_int = true;
      dim.start = *i;
      indexer.push_back(dim);
      continue;
    }
    if (std::optional<ValueId> id = traced_int(item, "a ref index")) {
      dim.is_int = true;
      dim.dynamic_start = *id;
      indexer.push_back(dim);
      continue;
    }
    if (auto* slice = item.as<eval::SliceObject>()) {
      for (const Value* bound : {&slice->start, &slice->stop, &slice->step}) {
        if (bound->as<TracerObject>() != nullptr) {
          interp.RaiseWithNotes(t.index_error,
                                "a slice of a ref needs static bounds; this one has a traced "
                                "bound",
                                {"for a window at a traced position use `pl.ds(start, size)`: "
                                 "`x_ref[pl.ds(i * 8, 8)]`"});
        }
      }
      auto bound = [&](const Value& v, const char* what) -> std::optional<int64_t> {
        if (v.is_none()) return std::nullopt;
        if (std::optional<int64_t> b = static_int(v)) return b;
        interp.Raise(t.type_error, fmt::format("slice {} must be an integer or None, not '{}'",
                                               what, interp.TypeName(v)));
      };
      std::optional<int64_t> start = bound(slice->start, "start");
      std::optional<int64_t> stop = bound(slice->stop, "stop");
      int64_t step = bound(slice->step, "step").value_or(1);
      if (step < 1) {
        interp.Raise(t.value_error,
                     fmt::format("slice step must be positive on a ref, got {}", step));
      }
      auto clamp = [&](std::optional<int64_t> v, int64_t fallback) {
        if (!v) return fallback;
        int64_t x = *v < 0 ? *v + n : *v;
        return std::clamp<int64_t>(x, 0, n);
      };
      int64_t lo = clamp(start, 0);
      int64_t hi = clamp(stop, n);
      dim.start = lo;
      dim.stride = step;
      dim.size = hi > lo ? (hi - lo + step - 1) / step : 0;
      indexer.push_back(dim);
      continue;
    }
    if (auto* ds = AsRecord(item, "Slice")) {
      const Value& start = ds->Get("start");
      const Value& size = ds->Get("size");
      const Value& stride = ds->Get("stride");
      std::optional<int64_t> static_size = static_int(size);
      if (!static_size) {
        interp.RaiseWithNotes(t.value_error,
                              "the size of `pl.ds(start, size)` must be a static int when "
                              "indexing a ref",
                              {"only the start may be traced; the size is the block of data "
                               "moved, which must be known while tracing"});
      }
      if (*static_size < 0) interp.Raise(t.value_error, "pl.ds size must be non-negative");
      std::optional<int64_t> static_stride = static_int(stride);
      if (!static_stride || *static_stride < 1) {
        interp.Raise(t.value_error, "the stride of `pl.ds` must be a static positive int");
      }
      dim.size = *static_size;
      dim.stride = *static_stride;
      if (std::optional<int64_t> s = static_int(start)) {
        dim.start = *s;
        if (*s < 0 || (dim.size > 0 && *s + (dim.size - 1) * dim.stride >= n) ||
            (dim.size == 0 && *s > n)) {
          interp.Raise(t.value_error,
                       fmt::format("Out of bound slice: start={}, size={}, stride={}, dim={}.", *s,
                                   dim.size, dim.stride, n));
        }
      } else if (std::optional<ValueId> id = traced_int(start, "the start of pl.ds")) {
        dim.dynamic_start = *id;
        if (dim.size > n || (dim.size > 0 && (dim.size - 1) * dim.stride >= n)) {
          interp.Raise(t.value_error,
                       fmt::format("Out of bound slice: size={}, stride={}, dim={} (the window "
                                   "is larger than the dimension)",
                                   dim.size, dim.stride, n));
        }
      } else {
        interp.Raise(t.type_error, fmt::format("pl.ds start must be an integer, not '{}'",
                                               interp.TypeName(start)));
      }
      indexer.push_back(dim);
      continue;
    }
    if (item.is_none()) {
      interp.RaiseWithNotes(t.index_error, "`None` (a new axis) cannot index a ref",
                            {"load first, then add the axis: `x_ref[...][None, :]`"});
    }
    if (item.as<eval::ArrayObject>() != nullptr || item.is(eval::ObjectKind::kList)) {
      interp.RaiseWithNotes(t.not_implemented_error,
                            "Cannot do int indexing on TPU: refs cannot be indexed with an array",
                            {"load a window with `pl.ds(start, size)` and select from the "
                             "loaded value instead"});
    }
    interp.Raise(t.type_error,
                 fmt::format("a ref cannot be indexed with '{}'", interp.TypeName(item)));
  }
  return indexer;
}

Value RefObject::Load(const Value& key) {
  Interpreter& interp = trace->interp();
  Indexer indexer = ParseIndex(key);
  RefPath access = path;
  access.indexers.push_back(indexer);
  array::Shape result = IndexedShape(shape, {indexer});
  const RefType& ref = base();
  if (ref.space == MemorySpace::kSemaphore) {
    interp.RaiseWithNotes(interp.types().type_error,
                          fmt::format("`{}` is a semaphore, which cannot be loaded", ref.name),
                          {"read its count with `pl.semaphore_read(sem)`"});
  }
  if (ref.space == MemorySpace::kAny && trace->options().tpu_rules) {
    interp.RaiseWithNotes(
        interp.types().value_error,
        fmt::format("Loads are only allowed on VMEM and SMEM references: {} is in memory space "
                    "ANY (HBM), whose buffers cannot be referenced directly",
                    ref.name),
        {"copy it into VMEM with `pltpu.sync_copy(src, dst)` or `pltpu.make_async_copy`, or give "
         "it a BlockSpec without `memory_space=pl.ANY` so the pipeline brings blocks into VMEM"});
  }
  if (ref.space == MemorySpace::kSmem && !result.empty()) {
    interp.RaiseWithNotes(
        interp.types().value_error,
        fmt::format("Can only load scalars from SMEM: this load of {} has shape {}", ref.name,
                    ShapeString(result)),
        {"SMEM holds scalars (indices, counters); read one element, e.g. `" + ref.name +
         "[i]`, or keep vector data in VMEM"});
  }
  Instr& instr =
      trace->Emit(Op::kLoad, DynamicOperands(access), {{.shape = result, .dtype = ref.dtype}});
  instr.ref = std::move(access);
  return trace->MakeTracer(instr.results[0]);
}

void RefObject::Store(const Value& key, const Value& value) {
  Interpreter& interp = trace->interp();
  const eval::BuiltinTypes& t = interp.types();
  if (value.as<RefObject>() != nullptr) {
    interp.Raise(t.value_error,
                 "Cannot store a Ref into another Ref. Did you forget to load from it using "
                 "`[...]`?");
  }
  Indexer indexer = ParseIndex(key);
  RefPath access = path;
  access.indexers.push_back(indexer);
  array::Shape expected = IndexedShape(shape, {indexer});
  const RefType& ref = base();
  if (ref.space == MemorySpace::kSemaphore) {
    interp.RaiseWithNotes(t.type_error,
                          fmt::format("`{}` is a semaphore, which cannot be stored to", ref.name),
                          {"change its count with `pl.semaphore_signal` / `pl.semaphore_wait`"});
  }
  if (ref.space == MemorySpace::kAny && trace->options().tpu_rules) {
    interp.RaiseWithNotes(
        t.value_error,
        fmt::format("Stores are only allowed on VMEM and SMEM references: {} is in memory space "
                    "ANY (HBM), whose buffers cannot be referenced directly",
                    ref.name),
        {"write into a VMEM buffer and copy it out with `pltpu.sync_copy` or "
         "`pltpu.make_async_copy`"});
  }
  ValueId id = trace->Lift(value, "the stored value");
  ValueType type = trace->type(id);
  if (type.shape != expected) {
    std::vector<std::string> notes;
    if (type.shape.empty()) {
      notes.push_back("a store does not broadcast: to fill a block write `jnp.full(" + ref.name +
                      ".shape, value, " + ref.name + ".dtype)` or `jnp.zeros_like(" + ref.name +
                      ")`");
    } else {
      notes.push_back(
          "the value must have exactly the shape of the indexed region; reshape or "
          "slice it to match");
    }
    std::string message =
        fmt::format("Invalid shape for `swap`. Ref shape: {}. Expected shape: {}. Value shape: {}.",
                    ShapeString(shape), ShapeString(expected), ShapeString(type.shape));
    // A whole block stored with a value of the block's rank but another shape: the kernel
    // computes blocks of one shape and the BlockSpec asks for another. The BlockSpec is the
    // configuration that decides the block, so the error is raised there, with the store as a
    // note.
    bool whole_block = expected == ref.shape && type.shape.size() == expected.size();
    if (whole_block && ref.spec.valid() &&
        (ref.role == RefRole::kInput || ref.role == RefRole::kOutput)) {
      auto ex = interp.NewException(t.value_error, {eval::MakeStr(std::move(message))});
      ex->span = ref.spec;
      ex->related.push_back(
          {.message = fmt::format("the kernel stores a {} value into the whole {} block of `{}` "
                                  "here",
                                  ShapeString(type.shape), ShapeString(expected), ref.name),
           .span = interp.current_span()});
      ex->notes.push_back(fmt::format(
          "this BlockSpec makes `{}` a {} block; give it the block shape the kernel computes, or "
          "make the kernel compute a {} value",
          ref.name, ShapeString(expected), ShapeString(expected)));
      interp.Throw(ex);
    }
    interp.RaiseWithNotes(t.value_error, std::move(message), std::move(notes));
  }
  if (ref.space == MemorySpace::kSmem && !expected.empty()) {
    interp.Raise(t.value_error, fmt::format("Can only store scalars to SMEM: this store to {} has "
                                            "shape {}",
                                            ref.name, ShapeString(expected)));
  }
  if (type.dtype != ref.dtype) {
    bool weak_float = type.weak && array::IsFloating(type.dtype) && array::IsFloating(ref.dtype);
    bool int_to_int = array::IsInteger(type.dtype) && array::IsInteger(ref.dtype);
    if (!weak_float && !int_to_int) {
      interp.RaiseWithNotes(
          t.value_error,
          fmt::format("Invalid dtype for `swap`. Ref dtype: {}. Value dtype: "
                      "{}.",
                      array::DTypeName(ref.dtype), array::DTypeName(type.dtype)),
          {fmt::format("convert the value first: `value.astype({}.dtype)`", ref.name)});
    }
    id = trace->Convert(id, ref.dtype);
  }
  std::vector<ValueId> operands{id};
  for (ValueId dyn : DynamicOperands(access)) operands.push_back(dyn);
  Instr& instr = trace->Emit(Op::kStore, std::move(operands), {});
  instr.ref = std::move(access);
}

}  // namespace pz::kernel
