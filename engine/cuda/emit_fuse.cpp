// Fused loops of the CUDA emitter (emit_internal.h): consecutive elementwise instructions over
// one shape run as one loop over the elements, one element per thread, their values in
// registers. A kernel body such as `o_ref[...] = x_ref[...] * 2 + y_ref[...]` becomes one pass
// over memory instead of one pass (and one barrier) per operation.
//
// What may join a loop over shape S: loads whose result has shape S, elementwise primitives and
// uniform constants whose result has shape S, and stores of an access of shape S. An operand made
// inside the loop must have shape S itself (it is read at the thread's own element); operands
// made before the loop are read from their slots, broadcast as usual. A ref that a member stores
// into may be reached by no other member through another access (every thread touches only its
// own elements of it). Scalar instructions without effects between members (constants,
// program ids, scalar arithmetic, scalar loads of refs the loop has not stored into) run before
// the loop. A value made in the loop is written to its arena slot only when something outside
// the loop reads it.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "cuda/emit_internal.h"

namespace pz::cuda::detail {

namespace {

// Random primitives computed element by element from the element's index or its draws (not the
// keys, whose two words the draws read from memory).
bool ElementDraw(Prim prim) {
  return prim == Prim::kRandomBits || prim == Prim::kRandomUniform || prim == Prim::kRandomNormal;
}

bool SamePath(const kernel::RefPath& a, const kernel::RefPath& b) {
  if (a.ref != b.ref || a.indexers.size() != b.indexers.size()) return false;
  for (size_t i = 0; i < a.indexers.size(); ++i) {
    const kernel::Indexer& x = a.indexers[i];
    const kernel::Indexer& y = b.indexers[i];
    if (x.size() != y.size()) return false;
    for (size_t d = 0; d < x.size(); ++d) {
      if (x[d].is_int != y[d].is_int || x[d].start != y[d].start ||
          x[d].dynamic_start != y[d].dynamic_start || x[d].size != y[d].size ||
          x[d].stride != y[d].stride) {
        return false;
      }
    }
  }
  return true;
}

bool UniformConstant(const Instr& instr) {
  const array::Array& c = *instr.constant;
  array::Array values = c.Contiguous();
  size_t item = array::ItemSize(values.dtype());
  const char* raw = reinterpret_cast<const char*>(values.raw());
  for (int64_t i = 1; i < values.size(); ++i) {
    if (std::memcmp(raw + i * static_cast<int64_t>(item), raw, item) != 0) return false;
  }
  return true;
}

// Whether `instr` (its nested regions included) reads value `v`.
bool Reads(const Instr& instr, ValueId v) {
  if (std::find(instr.operands.begin(), instr.operands.end(), v) != instr.operands.end()) {
    return true;
  }
  for (const kernel::RefPath* path : kernel::RefPathsOf(instr)) {
    std::vector<ValueId> dynamic = kernel::DynamicOperands(*path);
    if (std::find(dynamic.begin(), dynamic.end(), v) != dynamic.end()) return true;
  }
  for (const kernel::Region& region : instr.regions) {
    for (const Instr& inner : region.body) {
      if (Reads(inner, v)) return true;
    }
    if (std::find(region.yields.begin(), region.yields.end(), v) != region.yields.end()) {
      return true;
    }
  }
  return false;
}

// Whether a load of `ref` may not move past `instr`: it writes the ref, or it is a DMA or a
// semaphore operation (which order memory).
bool Blocks(const Instr& instr, kernel::RefId ref) {
  switch (instr.op) {
    case Op::kStore:
      return instr.ref.ref == ref;
    case Op::kDmaStart:
    case Op::kDmaWait:
    case Op::kSemaphoreSignal:
    case Op::kSemaphoreWait:
    case Op::kSemaphoreRead:
      return true;
    default:
      break;
  }
  for (const kernel::Region& region : instr.regions) {
    for (const Instr& inner : region.body) {
      if (Blocks(inner, ref)) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<const Instr*> Emitter::Schedule(const kernel::Region& region) const {
  // Array loads move down to just before their first reader (so that `acc_ref[...] += f(...)`
  // loads the accumulator in the loop that adds and stores, not before `f`), unless something
  // on the way writes their ref.
  std::vector<const Instr*> order, pending;
  auto flush = [&](const Instr& next) {
    std::vector<const Instr*> kept;
    for (const Instr* load : pending) {
      if (Reads(next, load->results[0]) || Blocks(next, load->ref.ref)) {
        order.push_back(load);
      } else {
        kept.push_back(load);
      }
    }
    pending = std::move(kept);
  };
  for (const Instr& instr : region.body) {
    flush(instr);
    if (instr.op == Op::kLoad && !IsScalar(instr.results[0])) {
      pending.push_back(&instr);
    } else {
      order.push_back(&instr);
    }
  }
  order.insert(order.end(), pending.begin(), pending.end());
  return order;
}

void Emitter::CountUses(const kernel::Region& region) {
  for (const Instr& instr : region.body) {
    for (ValueId v : instr.operands) ++uses_[static_cast<size_t>(v)];
    for (const kernel::RefPath* path : kernel::RefPathsOf(instr)) {
      for (ValueId v : kernel::DynamicOperands(*path)) ++uses_[static_cast<size_t>(v)];
    }
    for (const kernel::Region& r : instr.regions) CountUses(r);
  }
  for (ValueId v : region.yields) ++uses_[static_cast<size_t>(v)];
}

std::optional<Shape> Emitter::FusedShape(const Instr& instr, const std::set<ValueId>& made) const {
  if (!instr.regions.empty()) return std::nullopt;
  Shape own;
  switch (instr.op) {
    case Op::kLoad:
    case Op::kStore: {
      const kernel::RefType& ref = f_.refs.at(static_cast<size_t>(instr.ref.ref));
      if (ref.space == kernel::MemorySpace::kSemaphore) return std::nullopt;
      own = kernel::IndexedShape(ref.shape, instr.ref.indexers);
      if (instr.op == Op::kLoad && TypeOf(instr.results[0]).shape != own) return std::nullopt;
      break;
    }
    case Op::kConstant:
      if (IsScalar(instr.results[0]) || !UniformConstant(instr)) return std::nullopt;
      own = TypeOf(instr.results[0]).shape;
      break;
    default:
      if (!kernel::IsPrim(instr.op) || instr.results.size() != 1) return std::nullopt;
      if (Family f = FamilyOf(kernel::PrimOf(instr.op));
          f != Family::kUnary && f != Family::kBinary && !ElementDraw(kernel::PrimOf(instr.op))) {
        return std::nullopt;
      }
      own = TypeOf(instr.results[0]).shape;
  }
  if (own.empty()) return std::nullopt;
  for (ValueId v : instr.operands) {
    if (made.count(v) && TypeOf(v).shape != own) return std::nullopt;
  }
  return own;
}

bool Emitter::Hoistable(const Instr& instr, const std::set<ValueId>& made,
                        const std::set<kernel::RefId>& stored) const {
  if (!instr.regions.empty() || instr.results.size() != 1 || !IsScalar(instr.results[0])) {
    return false;
  }
  for (ValueId v : instr.operands) {
    if (made.count(v)) return false;
  }
  switch (instr.op) {
    case Op::kConstant:
    case Op::kProgramId:
      return true;
    case Op::kLoad: {
      const kernel::RefType& ref = f_.refs.at(static_cast<size_t>(instr.ref.ref));
      return ref.space != kernel::MemorySpace::kSemaphore && !stored.count(instr.ref.ref);
    }
    default:
      if (!kernel::IsPrim(instr.op)) return false;
      Family f = FamilyOf(kernel::PrimOf(instr.op));
      return f == Family::kUnary || f == Family::kBinary;
  }
}

void Emitter::PlanRegion(const kernel::Region& region) {
  for (const Instr& instr : region.body) {
    for (const kernel::Region& r : instr.regions) PlanRegion(r);
  }
  std::vector<const Instr*>& order = orders_[&region];
  order = Schedule(region);
  // Products that stage their operands read them straight from the refs their loads name when
  // nothing writes the ref between the load and the product: the load is not emitted.
  std::set<const Instr*> absorbed;
  for (size_t d = 0; d < order.size(); ++d) {
    const Instr& dot = *order[d];
    if (!kernel::IsPrim(dot.op) || kernel::PrimOf(dot.op) != Prim::kDotGeneral ||
        !StagesOperands(dot)) {
      continue;
    }
    for (size_t side = 0; side < 2; ++side) {
      ValueId v = dot.operands[side];
      if (uses_[static_cast<size_t>(v)] != 1) continue;
      for (size_t j = d; j-- > 0;) {
        const Instr& load = *order[j];
        if (std::find(load.results.begin(), load.results.end(), v) == load.results.end()) {
          continue;
        }
        bool clear = load.op == Op::kLoad;
        for (size_t between = j + 1; clear && between < d; ++between) {
          clear = !Blocks(*order[between], load.ref.ref);
        }
        if (clear) {
          folded_[&dot][side] = &load;
          absorbed.insert(&load);
          register_only_[static_cast<size_t>(v)] = true;
        }
        break;
      }
    }
  }
  order.erase(std::remove_if(order.begin(), order.end(),
                             [&](const Instr* instr) { return absorbed.count(instr) > 0; }),
              order.end());
  std::vector<FusedLoop>& loops = loops_[&region];
  struct Body {
    const std::vector<const Instr*>& order;
    const Instr& operator[](size_t i) const { return *order[i]; }
    size_t size() const { return order.size(); }
  } body{order};
  size_t i = 0;
  while (i < body.size()) {
    std::optional<Shape> shape = FusedShape(body[i], {});
    if (!shape) {
      ++i;
      continue;
    }
    // Grow the loop from body[i]: members, and the scalar work between them that runs first.
    FusedLoop loop{.first = i, .end = i + 1, .shape = *shape};
    loop.members = {&body[i]};
    std::set<ValueId> made(body[i].results.begin(), body[i].results.end());
    std::map<kernel::RefId, std::vector<const kernel::RefPath*>> touched;
    std::set<kernel::RefId> stored;
    std::vector<const Instr*> pending;
    auto touch = [&](const Instr& instr) {
      if (instr.op != Op::kLoad && instr.op != Op::kStore) return;
      touched[instr.ref.ref].push_back(&instr.ref);
      if (instr.op == Op::kStore) stored.insert(instr.ref.ref);
    };
    // A member touching a ref that a member stores into must use the same access.
    auto no_hazard = [&](const Instr& instr) {
      if (instr.op != Op::kLoad && instr.op != Op::kStore) return true;
      kernel::RefId r = instr.ref.ref;
      if (instr.op == Op::kStore || stored.count(r)) {
        for (const kernel::RefPath* p : touched[r]) {
          if (!SamePath(*p, instr.ref)) return false;
        }
      }
      return true;
    };
    touch(body[i]);
    for (size_t next = i + 1; next < body.size(); ++next) {
      const Instr& instr = body[next];
      if (FusedShape(instr, made) == loop.shape && no_hazard(instr)) {
        loop.members.push_back(&instr);
        made.insert(instr.results.begin(), instr.results.end());
        touch(instr);
        loop.hoisted.insert(loop.hoisted.end(), pending.begin(), pending.end());
        pending.clear();
        loop.end = next + 1;
      } else if (Hoistable(instr, made, stored)) {
        pending.push_back(&instr);
      } else {
        break;
      }
    }
    i = loop.end;
    if (loop.members.size() == 1) continue;
    // Members whose values nothing reads, nor later members (a load or a sum the body made and
    // left), are not emitted (a variable set and never used); their loads' bounds checks still
    // run before the loop. Latest first, so that what only they read goes too.
    for (size_t m = loop.members.size(); m-- > 0;) {
      const Instr& member = *loop.members[m];
      if (member.op == Op::kStore ||
          std::any_of(member.results.begin(), member.results.end(),
                      [&](ValueId v) { return uses_[static_cast<size_t>(v)] > 0; })) {
        continue;
      }
      for (ValueId v : member.operands) --uses_[static_cast<size_t>(v)];
      loop.unused.insert(loop.unused.begin(), &member);
      loop.members.erase(loop.members.begin() + static_cast<std::ptrdiff_t>(m));
    }
    // A value read only by later members of the loop lives in a register alone.
    std::map<ValueId, int> inside;
    for (const Instr* member : loop.members) {
      for (ValueId v : member->operands) {
        if (made.count(v)) ++inside[v];
      }
    }
    for (ValueId v : made) {
      register_only_[static_cast<size_t>(v)] = uses_[static_cast<size_t>(v)] == inside[v];
    }
    loops.push_back(std::move(loop));
  }
  // Epilogues: a fused loop right after a product, over the product's shape, that alone reads
  // the product's result, and stores into no ref whose load the product folded.
  for (FusedLoop& loop : loops) {
    if (loop.first == 0) continue;
    const Instr& dot = *order[loop.first - 1];
    if (!kernel::IsPrim(dot.op) || kernel::PrimOf(dot.op) != Prim::kDotGeneral) continue;
    ValueId v = dot.results[0];
    if (TypeOf(v).shape != loop.shape || !MatrixForm(dot, Strides(TypeOf(dot.operands[0]).shape),
                                                     Strides(TypeOf(dot.operands[1]).shape))) {
      continue;
    }
    int inside = 0;
    bool clear = true;
    for (const Instr* member : loop.members) {
      inside += static_cast<int>(std::count(member->operands.begin(), member->operands.end(), v));
      if (member->op != Op::kStore) continue;
      if (auto f = folded_.find(&dot); f != folded_.end()) {
        for (const Instr* load : f->second) {
          if (load != nullptr && load->ref.ref == member->ref.ref) clear = false;
        }
      }
    }
    if (!clear || inside == 0 || inside != uses_[static_cast<size_t>(v)]) continue;
    loop.in_product = true;
    epilogue_[&dot] = &loop;
    register_only_[static_cast<size_t>(v)] = true;
  }
}

void Emitter::EmitRegion(const kernel::Region& region) {
  const std::vector<const Instr*>& body = orders_.at(&region);
  auto planned = loops_.find(&region);
  size_t next_loop = 0, i = 0;
  while (i < body.size()) {
    if (planned != loops_.end() && next_loop < planned->second.size() &&
        planned->second[next_loop].first == i) {
      const FusedLoop& loop = planned->second[next_loop++];
      if (!loop.in_product) {  // else the product before it has run it
        if (std::any_of(loop.members.begin(), loop.members.end(),
                        [&](const Instr* member) { return TouchesResident(*member); })) {
          EmitResidentFlush();
        }
        EmitFused(loop);
      }
      i = loop.end;
      continue;
    }
    if (TouchesResident(*body[i])) EmitResidentFlush();
    EmitInstr(*body[i++]);
  }
}

Emitter::Fused Emitter::PrepareFused(const FusedLoop& loop) {
  for (const Instr* instr : loop.hoisted) EmitInstr(*instr);
  Fused fused;
  bool stores = false;
  for (const Instr* instr : loop.members) {
    if (instr->op == Op::kLoad || instr->op == Op::kStore) {
      fused.accesses[instr] = Resolve(*instr, instr->ref);  // bounds checks run before the loop
      stores = stores || instr->op == Op::kStore;
    }
  }
  for (const Instr* instr : loop.unused) {
    if (instr->op == Op::kLoad) Resolve(*instr, instr->ref);  // checked, never read
  }
  if (stores) Sync();  // every thread has read what it needs of the memory stored into
  return fused;
}

void Emitter::EmitFused(const FusedLoop& loop) {
  Fused fused = PrepareFused(loop);
  if (loop.members.empty()) return;  // it made only values that nothing reads
  w_.Open(ElementLoop(Count(loop.shape)) + " {");
  fused_ = &fused;
  for (const Instr* instr : loop.members) EmitInstr(*instr);
  fused_ = nullptr;
  w_.Close();
  Sync();
}

}  // namespace pz::cuda::detail
