// The DMA and semaphore API of Pallas TPU (see dma_api.h). Descriptors are trace-time objects,
// as in JAX: each `.start()` / `.wait()` appends an instruction to the kernel being traced, and a
// wait needs only the semaphore and the copy's size, so a descriptor rebuilt in a later grid step
// waits for a copy started in an earlier one.
#include "kernel/dma_api.h"

#include <fmt/format.h>

#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "eval/scope.h"
#include "kernel/call_spec.h"
#include "kernel/control_flow.h"
#include "kernel/modules.h"
#include "kernel/pytree.h"
#include "kernel/records.h"
#include "kernel/trace.h"

namespace pz::kernel {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

// `pltpu.SemaphoreType.DMA` & co: a 0-d semaphore scratch type, or called with a shape, an array
// of semaphores.
class SemaphoreTypeObject final : public eval::Object {
 public:
  explicit SemaphoreTypeObject(SemaphoreKind kind)
      : Object(eval::ObjectKind::kExtension), kind(kind) {}
  std::string_view type_name() const override { return "SemaphoreType"; }
  std::string Repr(Interpreter&) const override {
    return "SemaphoreType." + std::string(SemaphoreKindName(kind));
  }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override {
    auto bound = eval::BindArgs(interp, "SemaphoreType", args, {"shape"});
    eval::ToShape(interp, *bound[0]);
    return MakeRecord("MemoryRef", {{"shape", *bound[0]},
                                    {"dtype", Value()},
                                    {"memory_space", eval::MakeStr("SEMAPHORE")},
                                    {"semaphore_type", Value(shared_from_this())}});
  }
  std::optional<Value> GetAttr(Interpreter&, std::string_view attr) override {
    if (attr == "name") return eval::MakeStr(std::string(SemaphoreKindName(kind)));
    return std::nullopt;
  }
  SemaphoreKind kind;
};

std::string ShapeString(const array::Shape& shape) { return array::ShapeToString(shape); }

// The kernel trace a DMA or semaphore function runs in; raises in host code.
Trace& KernelTrace(Interpreter& interp, std::string_view what) {
  Trace* trace = CurrentTrace(interp);
  if (trace == nullptr || trace->options().what != "kernel") {
    interp.Raise(interp.types().runtime_error,
                 fmt::format("{} can only be used inside a kernel passed to pl.pallas_call", what));
  }
  return *trace;
}

// `value` as a ref of the trace in progress, or ValueError `message`.
RefObject& AsRef(Interpreter& interp, Trace& trace, const Value& value, std::string_view message) {
  auto* ref = value.as<RefObject>();
  if (ref == nullptr) interp.Raise(interp.types().value_error, std::string(message));
  if (ref->trace.get() != &trace || !trace.active()) {
    interp.Raise(TracerErrors(interp).unexpected_tracer,
                 "Encountered an unexpected tracer: a ref of another kernel (or of a finished "
                 "trace) was used here");
  }
  // Dynamic indices of the views must still be in scope (not computed in a closed region).
  for (ValueId id : DynamicOperands(ref->path)) trace.Lift(trace.MakeTracer(id), "a ref index");
  return *ref;
}

// A 0-d semaphore ref, checked for the operation `verb` ("signal", "wait", "read").
RefObject& AsSemaphore(Interpreter& interp, Trace& trace, const Value& value,
                       std::string_view verb) {
  RefObject& sem =
      AsRef(interp, trace, value,
            fmt::format("Cannot {} on a non-semaphore Ref: {}", verb, interp.Repr(value)));
  if (sem.base().space != MemorySpace::kSemaphore) {
    interp.RaiseWithNotes(
        interp.types().value_error,
        fmt::format("Cannot {} on a non-semaphore Ref: {} is in {}", verb, sem.base().name,
                    MemorySpaceName(sem.base().space)),
        {"allocate semaphores with `pltpu.SemaphoreType.DMA` or `.REGULAR` in scratch_shapes "
         "or pl.run_scoped"});
  }
  if (!sem.shape.empty()) {
    interp.RaiseWithNotes(
        interp.types().value_error,
        fmt::format("Cannot {} on a non-()-shaped semaphore: {}", verb, ShapeString(sem.shape)),
        {fmt::format("pick one semaphore of the array: `{}.at[i]`", sem.base().name)});
  }
  return sem;
}

std::vector<ValueId> Concat(std::initializer_list<std::vector<ValueId>> parts) {
  std::vector<ValueId> out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

// The int32 operands of a `device_id=`: an integer (a logical id, or the coordinate on a mesh of
// one axis), a tuple or list of mesh coordinates, or a dict from mesh axis names to coordinates.
std::vector<ValueId> DeviceIdOperands(Interpreter& interp, Trace& trace, const Value& device_id) {
  std::vector<Value> parts;
  if (auto* dict = device_id.as<eval::DictObject>()) {
    for (const Value& key : interp.ToVector(device_id)) parts.push_back(*dict->Get(interp, key));
  } else if (device_id.as<eval::TupleObject>() || device_id.as<eval::ListObject>()) {
    parts = interp.ToVector(device_id);
  } else {
    parts.push_back(device_id);
  }
  std::vector<ValueId> ids;
  for (const Value& part : parts) {
    ValueId id = trace.Lift(part, "a device id");
    ValueType type = trace.type(id);
    if (!type.shape.empty() || !array::IsInteger(type.dtype)) {
      interp.Raise(interp.types().type_error,
                   fmt::format("a device id must be integer scalars, got {}", TypeToString(type)));
    }
    if (type.dtype != array::DType::kInt32) id = trace.Convert(id, array::DType::kInt32);
    ids.push_back(id);
  }
  return ids;
}

// A traced copy descriptor (`pltpu.make_async_copy`, `pltpu.make_async_remote_copy`).
class AsyncCopyDescriptor final : public eval::Object {
 public:
  AsyncCopyDescriptor(Value src, Value dst, Value sem, bool add, Value send_sem = Value(),
                      Value device_id = Value())
      : Object(eval::ObjectKind::kExtension),
        src_(std::move(src)),
        dst_(std::move(dst)),
        sem_(std::move(sem)),
        send_sem_(std::move(send_sem)),
        device_id_(std::move(device_id)),
        add_(add) {}
  std::string_view type_name() const override { return "AsyncCopyDescriptor"; }
  void ClearReferences() override { src_ = dst_ = sem_ = send_sem_ = device_id_ = Value(); }
  bool remote() const { return !send_sem_.is_none(); }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override {
    if (name == "src_ref") return src_;
    if (name == "dst_ref") return dst_;
    if (name == "dst_sem") return sem_;
    if (name == "src_sem") return send_sem_;
    if (name == "device_id") return device_id_;
    if (name == "is_remote") return Value::Bool(remote());
    auto self = std::static_pointer_cast<AsyncCopyDescriptor>(shared_from_this());
    if (name == "start") {
      return interp.MakeBuiltin("start", [self](Interpreter& interp, CallArgs& args) {
        auto bound = eval::BindArgs(interp, "start", args, {"priority=", "*", "add="});
        if (bound[0] && bound[0]->is_int() && bound[0]->as_int() < 0) {
          interp.Raise(
              interp.types().value_error,
              fmt::format("DMA start priority must be non-negative: {}", bound[0]->as_int()));
        }
        bool add = self->add_ || (bound[1] && interp.Truthy(*bound[1]));
        self->Start(interp, add);
        return Value();
      });
    }
    if (name == "wait" || name == "wait_recv") {
      bool both = name == "wait";
      return interp.MakeBuiltin(std::string(name),
                                [self, both](Interpreter& interp, CallArgs& args) {
                                  eval::NoArgs(interp, "wait", args);
                                  // A remote copy's wait is wait_send, then wait_recv.
                                  if (both && self->remote()) self->Wait(interp, true);
                                  self->Wait(interp, false);
                                  return Value();
                                });
    }
    if (name == "wait_send") {
      return interp.MakeBuiltin("wait_send", [self](Interpreter& interp, CallArgs& args) -> Value {
        eval::NoArgs(interp, "wait_send", args);
        if (!self->remote()) {
          interp.Raise(interp.types().value_error, "Cannot `wait_send` on a local copy.");
        }
        self->Wait(interp, true);
        return Value();
      });
    }
    return std::nullopt;
  }

  // Checks the operands (at `make_async_copy`, so that mistakes point at the descriptor).
  void Validate(Interpreter& interp) {
    Trace& trace = KernelTrace(interp, "pltpu.make_async_copy");
    const char* not_refs = "DMA source/destination/semaphore arguments must be Refs.";
    RefObject& src = AsRef(interp, trace, src_, not_refs);
    RefObject& dst = AsRef(interp, trace, dst_, not_refs);
    AsSemaphore(interp, trace, sem_, "signal");
    if (remote()) AsSemaphore(interp, trace, send_sem_, "signal");
    for (RefObject* ref : {&src, &dst}) {
      if (ref->base().space == MemorySpace::kSemaphore) {
        interp.Raise(
            interp.types().value_error,
            fmt::format("a DMA copies data between buffers; {} is a semaphore", ref->base().name));
      }
    }
    if (src.shape != dst.shape) {
      interp.RaiseWithNotes(
          interp.types().value_error,
          fmt::format("DMA source and destination must have the same shape: {} is {} but {} is {}",
                      src.base().name, ShapeString(src.shape), dst.base().name,
                      ShapeString(dst.shape)),
          {"a DMA neither broadcasts nor reshapes; copy a view of the right size, e.g. "
           "`x_hbm.at[pl.ds(start, n)]`"});
    }
    if (src.base().dtype == array::DType::kBool && trace.options().tpu_rules) {
      interp.RaiseWithNotes(interp.types().not_implemented_error,
                            "DMAs with bool dtypes are not supported.",
                            {"copy the mask as int8 or int32 and compare after loading"});
    }
    if (src.base().dtype != dst.base().dtype) {
      interp.RaiseWithNotes(
          interp.types().value_error,
          fmt::format("DMA source and destination must have the same dtype: {} is {} but {} is {}",
                      src.base().name, array::DTypeName(src.base().dtype), dst.base().name,
                      array::DTypeName(dst.base().dtype)),
          {"a DMA copies bytes and does not convert; give the buffer the source's dtype and "
           "convert after loading"});
    }
  }

 private:
  void Start(Interpreter& interp, bool add) {
    Trace& trace = KernelTrace(interp, "a DMA start");
    RefObject& src = AsRef(interp, trace, src_, "");
    RefObject& dst = AsRef(interp, trace, dst_, "");
    RefObject& sem = AsSemaphore(interp, trace, sem_, "signal");
    if (sem.base().semaphore != SemaphoreKind::kDma) {
      interp.RaiseWithNotes(
          interp.types().value_error,
          fmt::format("a DMA must signal a DMA semaphore, but {} is a {} semaphore",
                      sem.base().name, SemaphoreKindName(sem.base().semaphore)),
          {"allocate it with `pltpu.SemaphoreType.DMA`; regular semaphores are for "
           "pl.semaphore_signal / pl.semaphore_wait"});
    }
    std::vector<ValueId> operands =
        Concat({DynamicOperands(src.path), DynamicOperands(dst.path), DynamicOperands(sem.path)});
    kernel::RefPath send_path;
    std::vector<ValueId> device;
    if (remote()) {
      RefObject& send = AsSemaphore(interp, trace, send_sem_, "signal");
      if (send.base().semaphore != SemaphoreKind::kDma) {
        interp.Raise(interp.types().value_error,
                     fmt::format("a remote DMA must signal DMA semaphores, but the send "
                                 "semaphore {} is a {} semaphore",
                                 send.base().name, SemaphoreKindName(send.base().semaphore)));
      }
      send_path = send.path;
      operands = Concat({operands, DynamicOperands(send.path)});
      device = DeviceIdOperands(interp, trace, device_id_);
      operands = Concat({operands, device});
    }
    Instr& instr = trace.Emit(Op::kDmaStart, std::move(operands), {});
    instr.copy = {src.path, dst.path};
    instr.ref = sem.path;
    instr.add = add;
    instr.send_sem = std::move(send_path);
    instr.device_operands = static_cast<int>(device.size());
  }

  // The wait on the receive semaphore, or with `send` on the send semaphore of a remote copy.
  void Wait(Interpreter& interp, bool send) {
    Trace& trace = KernelTrace(interp, "a DMA wait");
    RefObject& src = AsRef(interp, trace, src_, "");
    RefObject& dst = AsRef(interp, trace, dst_, "");
    RefObject& sem = AsSemaphore(interp, trace, send ? send_sem_ : sem_, "wait");
    if (sem.base().semaphore != SemaphoreKind::kDma) {
      interp.Raise(interp.types().value_error,
                   "dma_wait requires a DMA semaphore, but got a regular semaphore. Use "
                   "pl.semaphore_wait() instead.");
    }
    // The wait reads only the semaphore; like JAX's dma_wait it still names the copy's source
    // and destination (with their traced indices), for messages and for other backends.
    Instr& instr = trace.Emit(
        Op::kDmaWait,
        Concat({DynamicOperands(src.path), DynamicOperands(dst.path), DynamicOperands(sem.path)}),
        {});
    instr.copy = {src.path, dst.path};
    instr.ref = sem.path;
    instr.bytes =
        array::NumElements(src.shape) * static_cast<int64_t>(array::ItemSize(src.base().dtype));
  }

  Value src_, dst_, sem_;
  Value send_sem_;   // remote copies: the semaphore the source side waits on (None: local)
  Value device_id_;  // remote copies: the target device
  bool add_ = false;
};

Value MakeDescriptor(Interpreter& interp, const Value& src, const Value& dst, const Value& sem,
                     bool add, const Value& send_sem = Value(), const Value& device_id = Value()) {
  auto descriptor = std::make_shared<AsyncCopyDescriptor>(src, dst, sem, add, send_sem, device_id);
  descriptor->Validate(interp);
  interp.Track(descriptor);
  return Value(descriptor);
}

// pl.run_scoped: allocates `types` (positional) and `kw_types` for the body, traces it in a
// region and returns its result.
Value RunScoped(Interpreter& interp, const Value& body, const std::vector<Value>& types,
                const std::vector<std::pair<std::string, Value>>& kw_types,
                std::vector<std::string> names = {}) {
  Trace& trace = KernelTrace(interp, "pl.run_scoped");
  if (names.empty()) names = ParamNames(body);
  std::vector<RefId> ref_ids;
  CallArgs call{.span = interp.current_span()};
  for (size_t i = 0; i < types.size(); ++i) {
    std::string name = i < names.size() ? names[i] : fmt::format("scoped {}", i);
    RefId id = trace.AddRef(ScratchRefType(interp, types[i], name, RefRole::kScoped));
    ref_ids.push_back(id);
    call.positional.push_back(trace.MakeRef(id));
  }
  for (const auto& [key, type] : kw_types) {
    RefId id = trace.AddRef(ScratchRefType(interp, type, key, RefRole::kScoped));
    ref_ids.push_back(id);
    call.keywords.emplace_back(key, trace.MakeRef(id));
  }
  TreeDef def;
  std::vector<ValueType> result_types;
  Region region = trace.TraceRegion({}, [&](std::vector<Value>) {
    Value result = interp.Call(body, std::move(call));
    std::vector<Value> leaves;
    def = Flatten(interp, result, leaves);
    std::vector<ValueId> ids;
    for (const Value& leaf : leaves) {
      ids.push_back(trace.Lift(leaf, "a result of pl.run_scoped"));
      ValueType type = trace.type(ids.back());
      result_types.push_back(type);
    }
    return ids;
  });
  Instr& instr = trace.Emit(Op::kRunScoped, {}, result_types);
  instr.scoped = std::move(ref_ids);
  instr.regions.push_back(std::move(region));
  std::vector<Value> tracers;
  for (ValueId id : instr.results) tracers.push_back(trace.MakeTracer(id));
  return Unflatten(interp, def, tracers);
}

// pltpu.sync_copy: a scoped DMA semaphore, every copy started, then every copy waited.
void SyncCopy(Interpreter& interp, const Value& src, const Value& dst, bool add) {
  std::vector<Value> srcs, dsts;
  TreeDef src_def = Flatten(interp, src, srcs);
  TreeDef dst_def = Flatten(interp, dst, dsts);
  if (!SameStructure(src_def, dst_def, interp)) {
    interp.Raise(interp.types().value_error,
                 fmt::format("pltpu.sync_copy: the source {} and destination {} pytrees differ",
                             src_def.ToString(interp), dst_def.ToString(interp)));
  }
  Value sem_type(std::make_shared<SemaphoreTypeObject>(SemaphoreKind::kDma));
  Value body =
      interp.MakeBuiltin("sync_copy", [srcs, dsts, add](Interpreter& interp, CallArgs& args) {
        std::vector<Value> descriptors;
        for (size_t i = 0; i < srcs.size(); ++i) {
          descriptors.push_back(MakeDescriptor(interp, srcs[i], dsts[i], args.positional[0], add));
          interp.Call(interp.GetAttr(descriptors.back(), "start"), std::vector<Value>{});
        }
        for (const Value& d : descriptors)
          interp.Call(interp.GetAttr(d, "wait"), std::vector<Value>{});
        return Value();
      });
  RunScoped(interp, body, {sem_type}, {}, {"sync_copy_sem"});
}

// The int32 scalar operand of a semaphore op (`inc`, `value`).
ValueId SemaphoreAmount(Interpreter& interp, Trace& trace, const Value& value, const char* verb) {
  ValueId id = trace.Lift(value, fmt::format("the amount to {}", verb));
  ValueType type = trace.type(id);
  if (!type.shape.empty() || !array::IsInteger(type.dtype) ||
      (!type.weak && type.dtype != array::DType::kInt32)) {
    interp.Raise(interp.types().value_error,
                 fmt::format("Must {} an int32 value, but got {}", verb, TypeToString(type)));
  }
  if (type.weak || type.dtype != array::DType::kInt32) {
    id = trace.Convert(id, array::DType::kInt32);
  }
  return id;
}

// Checks a semaphore for pl.semaphore_signal / wait: regular or barrier, not DMA.
RefObject& RegularSemaphore(Interpreter& interp, Trace& trace, const Value& value,
                            const char* verb) {
  RefObject& sem = AsSemaphore(interp, trace, value, verb);
  if (sem.base().semaphore == SemaphoreKind::kDma) {
    interp.RaiseWithNotes(
        interp.types().value_error,
        fmt::format("Must {} semaphores of the following types: REGULAR, BARRIER. Got DMA "
                    "(`{}`)",
                    verb, sem.base().name),
        {"a DMA semaphore counts the bytes of copies and is waited on through the copy's "
         "descriptor: `pltpu.make_async_copy(src, dst, sem).wait()`"});
  }
  return sem;
}

}  // namespace

RefType ScratchRefType(Interpreter& interp, const Value& value, std::string name, RefRole role) {
  const char* where = role == RefRole::kScoped ? "pl.run_scoped types" : "scratch_shapes entries";
  if (auto* sem = value.as<SemaphoreTypeObject>()) {
    return {.name = std::move(name),
            .shape = {},
            .dtype = array::DType::kInt32,
            .space = MemorySpace::kSemaphore,
            .role = role,
            .semaphore = sem->kind};
  }
  auto* record = AsRecord(value, "MemoryRef");
  if (record == nullptr) {
    interp.Raise(interp.types().type_error,
                 fmt::format("{} must be pltpu.VMEM(shape, dtype), pltpu.SMEM(shape, dtype) or a "
                             "pltpu.SemaphoreType, got {}",
                             where, interp.Repr(value)));
  }
  array::Shape shape = eval::ToShape(interp, record->Get("shape"));
  if (auto* sem = record->Get("semaphore_type").as<SemaphoreTypeObject>()) {
    return {.name = std::move(name),
            .shape = std::move(shape),
            .dtype = array::DType::kInt32,
            .space = MemorySpace::kSemaphore,
            .role = role,
            .semaphore = sem->kind};
  }
  std::optional<Value> space_name = interp.TryGetAttr(record->Get("memory_space"), "name");
  std::string space = space_name && space_name->as<eval::StrObject>()
                          ? space_name->as<eval::StrObject>()->value
                          : "";
  RefType type{.name = std::move(name), .shape = std::move(shape), .role = role};
  if (space == "VMEM") {
    type.space = MemorySpace::kVmem;
  } else if (space == "SMEM") {
    type.space = MemorySpace::kSmem;
  } else if (space == "SEMAPHORE") {
    type.space = MemorySpace::kSemaphore;
    type.shape = eval::ToShape(interp, record->Get("shape"));
    type.dtype = array::DType::kInt32;
    return type;
  } else if (space == "ANY" || space == "HBM") {
    interp.Raise(interp.types().value_error,
                 role == RefRole::kScoped
                     ? "Cannot allocate HBM in `run_scoped`."
                     : "scratch buffers must be in VMEM or SMEM (HBM cannot be allocated for a "
                       "kernel)");
  } else {
    interp.Raise(interp.types().value_error, fmt::format("unsupported memory space {}",
                                                         interp.Repr(record->Get("memory_space"))));
  }
  type.dtype = eval::ToDType(interp, record->Get("dtype"));
  return type;
}

void InstallDmaApi(Interpreter& interp) {
  auto pl = interp.FindModule("jax.experimental.pallas");
  auto pltpu = interp.FindModule("jax.experimental.pallas.tpu");

  auto semaphore_type = std::make_shared<eval::ModuleObject>("SemaphoreType");
  for (SemaphoreKind kind :
       {SemaphoreKind::kRegular, SemaphoreKind::kDma, SemaphoreKind::kBarrier}) {
    semaphore_type->Set(std::string(SemaphoreKindName(kind)),
                        Value(std::make_shared<SemaphoreTypeObject>(kind)));
  }
  pltpu->Set("SemaphoreType", Value(semaphore_type));

  AddBuiltin(interp, *pltpu, "make_async_copy", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "make_async_copy", args, {"src_ref", "dst_ref", "sem"});
    return MakeDescriptor(interp, *bound[0], *bound[1], *bound[2], false);
  });
  AddBuiltin(interp, *pltpu, "async_copy", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "async_copy", args,
                                {"src_ref", "dst_ref", "sem", "*", "priority=", "add="});
    bool add = bound[4] && interp.Truthy(*bound[4]);
    Value descriptor = MakeDescriptor(interp, *bound[0], *bound[1], *bound[2], add);
    std::vector<Value> none;
    interp.Call(interp.GetAttr(descriptor, "start"), none);
    return descriptor;
  });
  AddBuiltin(interp, *pltpu, "sync_copy", [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "sync_copy", args, {"src_ref", "dst_ref", "*", "add="});
    SyncCopy(interp, *bound[0], *bound[1], bound[2] && interp.Truthy(*bound[2]));
    return Value();
  });

  // Remote copies: on the one device the emulator runs, every device id must name it (0).
  auto remote_copy = [](bool start) {
    return [start](Interpreter& interp, CallArgs& args) {
      auto bound = eval::BindArgs(
          interp, start ? "async_remote_copy" : "make_async_remote_copy", args,
          {"src_ref", "dst_ref", "send_sem", "recv_sem", "device_id", "device_id_type="});
      Value descriptor =
          MakeDescriptor(interp, *bound[0], *bound[1], *bound[3], false, *bound[2], *bound[4]);
      if (start) interp.Call(interp.GetAttr(descriptor, "start"), std::vector<Value>{});
      return descriptor;
    };
  };
  AddBuiltin(interp, *pltpu, "make_async_remote_copy", remote_copy(false));
  AddBuiltin(interp, *pltpu, "async_remote_copy", remote_copy(true));
  // The kernel's barrier semaphore (one per kernel, shared by every call to this function).
  AddBuiltin(interp, *pltpu, "get_barrier_semaphore", [](Interpreter& interp, CallArgs& args) {
    eval::NoArgs(interp, "get_barrier_semaphore", args);
    Trace& trace = KernelTrace(interp, "pltpu.get_barrier_semaphore");
    return trace.MakeRef(trace.BarrierSemaphore());
  });
  // pl.DeviceIdType: how a device_id names a device.
  auto device_id_type = std::make_shared<eval::ModuleObject>("DeviceIdType");
  for (const char* kind : {"MESH", "LOGICAL"}) {
    device_id_type->Set(kind, MakeRecord("DeviceIdType", {{"name", eval::MakeStr(kind)}}));
  }
  pl->Set("DeviceIdType", Value(device_id_type));
  pltpu->Set("DeviceIdType", Value(device_id_type));

  auto signal = [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(
        interp, "semaphore_signal", args,
        {"sem_or_view", "inc=", "*", "device_id=", "device_id_type=", "core_index="});
    Trace& trace = KernelTrace(interp, "pl.semaphore_signal");
    if (bound[4] && !bound[4]->is_none()) {
      interp.Raise(interp.types().not_implemented_error,
                   "signalling a semaphore of another core (core_index=) is not supported: the "
                   "emulator runs one core");
    }
    RefObject& sem = RegularSemaphore(interp, trace, *bound[0], "signal");
    ValueId inc = SemaphoreAmount(interp, trace, bound[1].value_or(Value::Int(1)), "signal");
    std::vector<ValueId> device;
    if (bound[2] && !bound[2]->is_none()) device = DeviceIdOperands(interp, trace, *bound[2]);
    Instr& instr =
        trace.Emit(Op::kSemaphoreSignal, Concat({{inc}, DynamicOperands(sem.path), device}), {});
    instr.ref = sem.path;
    instr.device_operands = static_cast<int>(device.size());
    return Value();
  };
  auto wait = [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "semaphore_wait", args,
                                {"sem_or_view", "value=", "*", "decrement="});
    Trace& trace = KernelTrace(interp, "pl.semaphore_wait");
    RefObject& sem = RegularSemaphore(interp, trace, *bound[0], "wait");
    ValueId value = SemaphoreAmount(interp, trace, bound[1].value_or(Value::Int(1)), "wait");
    bool decrement = !bound[2] || interp.Truthy(*bound[2]);
    Instr& instr = trace.Emit(Op::kSemaphoreWait, Concat({{value}, DynamicOperands(sem.path)}), {});
    instr.ref = sem.path;
    instr.decrement = decrement;
    return Value();
  };
  auto read = [](Interpreter& interp, CallArgs& args) {
    auto bound = eval::BindArgs(interp, "semaphore_read", args, {"sem_or_view"});
    Trace& trace = KernelTrace(interp, "pl.semaphore_read");
    RefObject& sem = AsSemaphore(interp, trace, *bound[0], "read");
    Instr& instr = trace.Emit(Op::kSemaphoreRead, DynamicOperands(sem.path),
                              {{.shape = {}, .dtype = array::DType::kInt32}});
    instr.ref = sem.path;
    return trace.MakeTracer(instr.results[0]);
  };
  for (auto* module : {pl.get(), pltpu.get()}) {
    AddBuiltin(interp, *module, "semaphore_signal", signal);
    AddBuiltin(interp, *module, "semaphore_wait", wait);
    AddBuiltin(interp, *module, "semaphore_read", read);
  }

  // pl.with_scoped(*types, **kw_types)(f)(*args): f(*args, *refs, **kw_refs) under run_scoped.
  AddBuiltin(interp, *pl, "with_scoped", [](Interpreter& interp, CallArgs& args) {
    std::vector<Value> types = args.positional;
    std::vector<std::pair<std::string, Value>> kw_types;
    for (const auto& [key, value] : args.keywords) {
      if (key != "collective_axes") kw_types.emplace_back(key, value);
    }
    return interp.MakeBuiltin(
        "with_scoped", [types, kw_types](Interpreter& interp, CallArgs& decorator) {
          auto f = eval::BindArgs(interp, "with_scoped(...)", decorator, {"f"});
          Value fn = *f[0];
          return interp.MakeBuiltin(
              "scoped", [fn, types, kw_types](Interpreter& interp, CallArgs& call) {
                std::vector<Value> outer = call.positional;
                std::vector<std::string> names = ParamNames(fn);
                names.erase(names.begin(), names.begin() + std::min(outer.size(), names.size()));
                Value body = interp.MakeBuiltin("scoped_body",
                                                [fn, outer](Interpreter& interp, CallArgs& refs) {
                                                  CallArgs inner{.span = interp.current_span()};
                                                  inner.positional = outer;
                                                  for (const Value& r : refs.positional)
                                                    inner.positional.push_back(r);
                                                  inner.keywords = refs.keywords;
                                                  return interp.Call(fn, std::move(inner));
                                                });
                return RunScoped(interp, body, types, kw_types, names);
              });
        });
  });
  AddBuiltin(interp, *pl, "run_scoped", [](Interpreter& interp, CallArgs& args) {
    if (args.positional.empty()) {
      interp.Raise(interp.types().type_error, "run_scoped() missing required argument: 'f'");
    }
    std::vector<Value> types(args.positional.begin() + 1, args.positional.end());
    std::vector<std::pair<std::string, Value>> kw_types;
    for (const auto& [key, value] : args.keywords) {
      if (key != "collective_axes") kw_types.emplace_back(key, value);
    }
    return RunScoped(interp, args.positional[0], types, kw_types);
  });
}

}  // namespace pz::kernel
