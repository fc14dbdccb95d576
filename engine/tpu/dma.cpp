// The DMA engine, semaphores and the DMA detector (see dma.h), and the executor's DMA and
// semaphore instructions, which resolve their refs and hand over to the engine.
#include "tpu/dma.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "array/creation.h"
#include "array/elementwise.h"
#include "support/check.h"

namespace pz::tpu {

using kernel::Instr;
using kernel::RefId;

namespace {

// More outstanding copies than any TPU queues; also bounds the pairwise overlap checks.
constexpr size_t kMaxInFlight = 4096;

// The shadow of a view made all-initialised.
void MarkInitialised(array::Array& shadow) {
  shadow.Assign(array::Ones(shadow.shape(), array::DType::kUInt8));
}

}  // namespace

MemRegion RegionOf(const RefBuffer& buffer, const array::Array& view) {
  MemRegion region{.buffer = &buffer};
  for (int64_t n : view.shape()) {
    if (n == 0) return region;
  }
  // The first and last elements of a box view are its corners: unravel both offsets against the
  // buffer's strides, outermost first (row-major, or a borrowed window's strides into HBM).
  const array::Shape& shape = buffer.data.shape();
  const std::vector<int64_t>& strides = buffer.data.strides();
  int64_t first = view.offset() - buffer.data.offset();
  int64_t last = first;
  for (size_t d = 0; d < view.shape().size(); ++d) {
    last += (view.shape()[d] - 1) * view.strides()[d];
  }
  region.rank = shape.size();
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t stride = std::max<int64_t>(strides[d], 1);
    region.lo[d] = shape[d] > 1 ? first / stride : 0;
    region.hi[d] = shape[d] > 1 ? last / stride : 0;
    if (shape[d] > 1) {
      first %= stride;
      last %= stride;
    }
    if (region.lo[d] > region.hi[d]) std::swap(region.lo[d], region.hi[d]);
  }
  region.empty = false;
  return region;
}

bool Overlaps(const MemRegion& a, const MemRegion& b) {
  if (a.empty || b.empty || a.buffer != b.buffer) return false;
  for (size_t d = 0; d < a.rank; ++d) {
    if (a.hi[d] < b.lo[d] || b.hi[d] < a.lo[d]) return false;
  }
  return true;
}

DmaEngine::DmaEngine(const kernel::Function& kernel, const EmulatorOptions& options,
                     std::function<std::string(SourceSpan)> line_of, Counters& counters)
    : kernel_(kernel), options_(options), line_of_(std::move(line_of)), counters_(counters) {
  semaphores_.resize(kernel.refs.size());
  for (size_t r = 0; r < kernel.refs.size(); ++r) {
    if (kernel.refs[r].space == kernel::MemorySpace::kSemaphore) {
      semaphores_[r].resize(static_cast<size_t>(array::NumElements(kernel.refs[r].shape)));
    }
  }
}

void DmaEngine::SetStep(int64_t step, const std::vector<int64_t>& point) {
  step_ = step;
  point_ = point;
  taken_.clear();
}

std::string DmaEngine::Step() const { return TupleString(point_); }

std::string DmaEngine::RefName(RefId ref) const { return "`" + kernel_.refs[ref].name + "`"; }

// "sems[1, 0]" for element 4 of a (2, 2) semaphore array, "sem" for a single semaphore.
std::string DmaEngine::ShortSemName(SemaphoreSlot sem) const {
  const kernel::RefType& ref = kernel_.refs[sem.ref];
  if (ref.shape.empty()) return ref.name;
  std::vector<int64_t> index = UnravelIndex(sem.index, ref.shape);
  std::string s = ref.name + "[";
  for (size_t d = 0; d < index.size(); ++d) s += (d ? ", " : "") + std::to_string(index[d]);
  return s + "]";
}

std::string DmaEngine::SemName(SemaphoreSlot sem) const { return "`" + ShortSemName(sem) + "`"; }

// "buf[1]" or "x_hbm[64:136]": the part of the ref a view reaches, as an index with Python's
// slice bounds (whole trailing dimensions left out), or "buf" for all of it.
std::string DmaEngine::ShortViewName(RefId ref, const MemRegion& region) const {
  const std::string& name = kernel_.refs[ref].name;
  if (region.empty || region.buffer == nullptr) return name;
  const array::Shape& shape = region.buffer->data.shape();
  std::vector<std::string> index;
  for (size_t d = 0; d < region.rank; ++d) {
    if (region.lo[d] == 0 && region.hi[d] == shape[d] - 1) {
      index.push_back(":");
    } else if (region.lo[d] == region.hi[d]) {
      index.push_back(std::to_string(region.lo[d]));
    } else {
      index.push_back(fmt::format("{}:{}", region.lo[d], region.hi[d] + 1));
    }
  }
  while (!index.empty() && index.back() == ":") index.pop_back();
  if (index.empty()) return name;
  return fmt::format("{}[{}]", name, fmt::join(index, ", "));
}

std::string DmaEngine::ViewName(RefId ref, const MemRegion& region) const {
  return "`" + ShortViewName(ref, region) + "`";
}

std::string DmaEngine::Describe(const Copy& copy) const {
  return fmt::format("{}{} -> {} ({} bytes)", copy.send_receipt ? "send of " : "",
                     ViewName(copy.src.ref, copy.src.region),
                     ViewName(copy.dst.ref, copy.dst.region), copy.bytes);
}

std::string DmaEngine::Where(const Copy& copy) const {
  return fmt::format("{} in grid step {}", line_of_ ? line_of_(copy.span) : "?",
                     TupleString(copy.point));
}

DmaEngine::SemaphoreState& DmaEngine::State(SemaphoreSlot sem) {
  return semaphores_[sem.ref][static_cast<size_t>(sem.index)];
}
const DmaEngine::SemaphoreState& DmaEngine::State(SemaphoreSlot sem) const {
  return semaphores_[sem.ref][static_cast<size_t>(sem.index)];
}

void DmaEngine::Fail(SourceSpan span, std::string message, std::vector<std::string> notes,
                     std::vector<Note> related) const {
  throw EmulationError{.kind = EmulationError::Kind::kRuntimeError,
                       .message = std::move(message),
                       .span = span,
                       .notes = std::move(notes),
                       .related = std::move(related)};
}

void DmaEngine::FailSplit(SourceSpan span, std::string message, std::vector<std::string> notes,
                          std::vector<Note> related) const {
  if (!core_share_.empty()) notes.push_back(core_share_);
  Fail(span, std::move(message), std::move(notes), std::move(related));
}

Note DmaEngine::StartedHere(const Copy& copy) const {
  return Note{.message = fmt::format("the DMA {} started here in grid step {}", Describe(copy),
                                     TupleString(copy.point)),
              .span = copy.span};
}

void DmaEngine::Record(DmaEvent::Kind kind, const Instr& instr, int64_t amount, std::string what) {
  if (counters_.timeline.size() >= kMaxTimelineEvents) {
    ++counters_.timeline_dropped;
    return;
  }
  counters_.timeline.push_back({.kind = kind,
                                .step = step_,
                                .point = point_,
                                .span = instr.span,
                                .amount = amount,
                                .what = std::move(what)});
}

void DmaEngine::Land(Copy& copy) {
  if (copy.send_receipt) {  // the data moves with the receiving half
    copy.landed = true;
    State(copy.sem).count += copy.bytes;
    return;
  }
  if (copy.add) {
    copy.dst.data.Assign(array::Binary(array::BinaryOp::kAdd, copy.dst.data, copy.src.data));
  } else {
    copy.dst.data.Assign(copy.src.data);
  }
  if (copy.dst.tracked) {
    if (copy.src.tracked) {
      copy.dst.shadow.Assign(copy.src.shadow);
    } else {
      MarkInitialised(copy.dst.shadow);
    }
  }
  copy.landed = true;
  State(copy.sem).count += copy.bytes;
  if (on_land) on_land(copy.src, copy.dst, copy.step, copy.span);
}

void DmaEngine::Start(const Instr& instr, DmaEndpoint src, DmaEndpoint dst, SemaphoreSlot sem,
                      bool add, std::optional<SemaphoreSlot> send) {
  std::optional<Copy> receipt;
  if (send) {
    receipt = Copy{.src = src, .dst = dst, .sem = *send, .send_receipt = true};
  }
  int64_t bytes = src.data.size() * static_cast<int64_t>(array::ItemSize(src.data.dtype()));
  Copy copy{.src = std::move(src),
            .dst = std::move(dst),
            .sem = sem,
            .bytes = bytes,
            .unconsumed = bytes,
            .add = add,
            .span = instr.span,
            .point = point_,
            .accesses_at_start = vector_accesses_,
            .step = step_};
  ++counters_.dma_count;
  kernel::MemorySpace from = kernel_.refs[copy.src.ref].space;
  kernel::MemorySpace to = kernel_.refs[copy.dst.ref].space;
  counters_.dma_bytes[{from, to}] += bytes;
  // A `pl.ANY` ref lives in HBM: its DMAs are HBM traffic as much as the pipeline's fetches.
  if (from == kernel::MemorySpace::kAny) counters_.hbm_bytes_read += bytes;
  if (to == kernel::MemorySpace::kAny) counters_.hbm_bytes_written += bytes;
  if (options_.timeline) {
    Record(DmaEvent::Kind::kStart, instr, bytes,
           fmt::format("{} -> {} on {}", ShortViewName(copy.src.ref, copy.src.region),
                       ShortViewName(copy.dst.ref, copy.dst.region), ShortSemName(sem)));
  }
  SemaphoreState& state = State(sem);
  state.last_span = state.signal_span = instr.span;
  state.last_point = state.signal_point = point_;
  state.touched = true;
  auto start_receipt = [&] {
    if (!receipt) return;
    Copy& r = *receipt;
    r.bytes = r.unconsumed = bytes;
    r.span = instr.span;
    r.point = point_;
    r.accesses_at_start = vector_accesses_;
    r.step = step_;
    SemaphoreState& send_state = State(r.sem);
    send_state.last_span = send_state.signal_span = instr.span;
    send_state.last_point = send_state.signal_point = point_;
    send_state.touched = true;
    if (!detect() || bytes == 0 || options_.dma_mode == DmaMode::kEager) Land(r);
    if (detect() && bytes != 0) inflight_.push_back(std::move(r));
  };
  if (!detect() || bytes == 0) {
    // JAX interpret=True: the copy happens at once and nothing is tracked (an empty copy has
    // nothing to track either).
    Land(copy);
    start_receipt();
    return;
  }
  for (const Copy& other : inflight_) {
    auto hint = [&] {
      return std::vector<std::string>{fmt::format(
          "wait for the DMA of {} (`.wait()`) before starting this one, or use another buffer",
          Where(other))};
    };
    // "<head>this DMA ... (grid step s) <verb> <view> <link> the DMA ... is still <tail>"
    auto conflict = [&](std::string_view head, std::string_view verb, const DmaEndpoint& end,
                        std::string_view link, std::string_view tail) {
      Fail(instr.span,
           fmt::format("{}this DMA {} (grid step {}) {} {} {} the DMA {} started at {} is still {}",
                       head, Describe(copy), Step(), verb, ViewName(end.ref, end.region), link,
                       Describe(other), Where(other), tail),
           hint(), {StartedHere(other)});
    };
    if (!other.send_receipt && Overlaps(copy.dst.region, other.dst.region)) {
      conflict("two DMAs in flight write overlapping memory: ", "writes", copy.dst, "where",
               "writing");
    }
    if (!other.send_receipt && Overlaps(copy.src.region, other.dst.region)) {
      conflict("DMA race: ", "reads", copy.src, "while", "writing it");
    }
    if (Overlaps(copy.dst.region, other.src.region)) {
      conflict("DMA race: ", "writes", copy.dst, "while", "reading it");
    }
  }
  if (inflight_.size() >= kMaxInFlight) {
    Fail(instr.span,
         fmt::format("too many DMAs in flight: this is the {}th copy started (grid step {}) "
                     "without a wait in between",
                     inflight_.size() + 1, Step()),
         {"a TPU's DMA engines queue far fewer outstanding copies; wait for earlier copies "
          "before starting more"});
  }
  if (options_.dma_mode == DmaMode::kEager) Land(copy);
  inflight_.push_back(std::move(copy));
  start_receipt();
}

void DmaEngine::Wait(const Instr& instr, SemaphoreSlot sem, int64_t bytes) {
  if (options_.timeline) Record(DmaEvent::Kind::kWait, instr, bytes, ShortSemName(sem));
  SemaphoreState& state = State(sem);
  if (!detect()) {
    // JAX interpret=True never blocks: the count may go negative.
    state.count -= bytes;
    return;
  }
  // on_wait: the copies on this semaphore land now, oldest first, until the count suffices.
  for (Copy& copy : inflight_) {
    if (state.count >= bytes) break;
    if (!copy.landed && copy.sem.ref == sem.ref && copy.sem.index == sem.index) Land(copy);
  }
  if (state.count < bytes) {
    std::vector<std::string> notes;
    std::vector<Note> related;
    for (const Copy& copy : inflight_) {
      if (copy.sem.ref != sem.ref || copy.sem.index != sem.index) continue;
      related.push_back(
          {.message = fmt::format("the DMA {} started here in grid step {} signals {}, but its "
                                  "{} bytes are fewer than this wait's {}",
                                  Describe(copy), TupleString(copy.point), SemName(sem),
                                  copy.unconsumed, bytes),
           .span = copy.span});
    }
    if (state.touched) {
      related.push_back({.message = fmt::format("{} was last signalled or waited here in grid "
                                                "step {}",
                                                SemName(sem), TupleString(state.last_point)),
                         .span = state.last_span});
    }
    notes.push_back(
        "each wait consumes the bytes of one copy: a DMA waited twice, or waited with a "
        "descriptor of another size or semaphore, blocks forever on a TPU");
    FailSplit(
        instr.span,
        fmt::format("deadlock: this wait on DMA semaphore {} (grid step {}) needs {} bytes but "
                    "the semaphore holds {} and no other DMA in flight signals it, so it can "
                    "never complete",
                    SemName(sem), Step(), bytes, state.count),
        std::move(notes), std::move(related));
  }
  state.count -= bytes;
  state.last_span = instr.span;
  state.last_point = point_;
  state.touched = true;
  // The bytes taken retire the oldest landed copies on this semaphore.
  int64_t left = bytes;
  for (Copy& copy : inflight_) {
    if (left == 0) break;
    if (!copy.landed || copy.sem.ref != sem.ref || copy.sem.index != sem.index) continue;
    int64_t take = std::min(left, copy.unconsumed);
    copy.unconsumed -= take;
    left -= take;
    if (take > 0 && !copy.send_receipt) {
      taken_.push_back({.wait_span = instr.span,
                        .sem = sem,
                        .copy = Describe(copy),
                        .copy_span = copy.span,
                        .copy_point = copy.point});
    }
    if (copy.unconsumed == 0 && vector_accesses_ > copy.accesses_at_start) {
      counters_.dma_bytes_overlapped += copy.bytes;
    }
  }
  std::erase_if(inflight_, [](const Copy& copy) { return copy.landed && copy.unconsumed == 0; });
}

void DmaEngine::Signal(const Instr& instr, SemaphoreSlot sem, int64_t amount) {
  if (options_.timeline) Record(DmaEvent::Kind::kSignal, instr, amount, ShortSemName(sem));
  SemaphoreState& state = State(sem);
  state.count += amount;
  state.last_span = state.signal_span = instr.span;
  state.last_point = state.signal_point = point_;
  state.touched = true;
}

void DmaEngine::SemaphoreWait(const Instr& instr, SemaphoreSlot sem, int64_t value,
                              bool decrement) {
  if (options_.timeline) Record(DmaEvent::Kind::kSemaphoreWait, instr, value, ShortSemName(sem));
  SemaphoreState& state = State(sem);
  if (detect() && state.count < value) {
    std::vector<std::string> notes;
    std::vector<Note> related;
    if (state.touched) {
      related.push_back({.message = fmt::format("{} was last signalled or waited here in grid "
                                                "step {}",
                                                SemName(sem), TupleString(state.last_point)),
                         .span = state.last_span});
    }
    notes.push_back(core_share_.empty()
                        ? "the emulator runs one core, so nothing else can signal the semaphore "
                          "while this wait blocks; signal it (pl.semaphore_signal) before waiting"
                        : "nothing else on this core can signal the semaphore while this wait "
                          "blocks; signal it (pl.semaphore_signal) before waiting");
    FailSplit(instr.span,
              fmt::format("deadlock: this wait on semaphore {} (grid step {}) needs {} but the "
                          "semaphore holds {}, so it can never complete",
                          SemName(sem), Step(), value, state.count),
              std::move(notes), std::move(related));
  }
  if (decrement) state.count -= value;
  state.last_span = instr.span;
  state.last_point = point_;
  state.touched = true;
}

int64_t DmaEngine::Read(SemaphoreSlot sem) {
  // A kernel polling a DMA semaphore sees its copies arrive (as time passes on a TPU), so a
  // busy-wait loop ends; the copies stay in flight until a wait takes their bytes.
  for (Copy& copy : inflight_) {
    if (!copy.landed && copy.sem.ref == sem.ref && copy.sem.index == sem.index) Land(copy);
  }
  return State(sem).count;
}

std::optional<Note> DmaEngine::WaitThatTookAnother(const Copy& copy) const {
  for (auto t = taken_.rbegin(); t != taken_.rend(); ++t) {
    if (t->sem.ref == copy.sem.ref && t->sem.index == copy.sem.index) return std::nullopt;
  }
  if (taken_.empty()) return std::nullopt;
  const Taken* t = &taken_.back();
  return Note{
      .message = fmt::format(
          "this wait (grid step {}) is on {}: it took the signal of the DMA {} started at {} "
          "in grid step {}, not of the copy into {} this access needs, which signals {}",
          Step(), SemName(t->sem), t->copy, line_of_ ? line_of_(t->copy_span) : "?",
          TupleString(t->copy_point), ViewName(copy.dst.ref, copy.dst.region), SemName(copy.sem)),
      .span = t->wait_span};
}

void DmaEngine::CheckAccess(const Instr& instr, RefId ref, const MemRegion& region, bool is_write) {
  int64_t elements = region.empty ? 0 : 1;
  for (size_t d = 0; d < region.rank; ++d) elements *= region.hi[d] - region.lo[d] + 1;
  if (elements > 1) ++vector_accesses_;
  for (const Copy& copy : inflight_) {
    auto hint = [&] {
      return std::vector<std::string>{fmt::format(
          "wait for the copy (`.wait()` on a descriptor with its semaphore, {}) before touching "
          "its {}; until then the DMA engine may still be moving the data",
          SemName(copy.sem), is_write ? "source or destination" : "destination")};
    };
    if (!copy.send_receipt && Overlaps(region, copy.dst.region)) {
      std::vector<Note> related{StartedHere(copy)};
      std::vector<std::string> notes = hint();
      if (std::optional<Note> wrong = WaitThatTookAnother(copy)) {
        // The step did wait, on another semaphore: a wait takes whichever copy signals the
        // semaphore it names, so it collected another copy while this one is still in flight.
        related.push_back(std::move(*wrong));
        notes = {fmt::format(
            "a wait takes the signal of the semaphore its descriptor names, whatever copy sent "
            "it: wait on {} (a descriptor with this copy's semaphore and size) before touching "
            "its destination",
            SemName(copy.sem))};
      }
      Fail(instr.span,
           fmt::format("DMA race: {} {} in grid step {} while the DMA {} started at {} is "
                       "still writing it",
                       is_write ? "write to" : "read of", ViewName(ref, region), Step(),
                       Describe(copy), Where(copy)),
           std::move(notes), std::move(related));
    }
    if (is_write && Overlaps(region, copy.src.region)) {
      Fail(instr.span,
           fmt::format("DMA race: write to {} in grid step {} while the DMA {} started at {} is "
                       "still reading it",
                       ViewName(ref, region), Step(), Describe(copy), Where(copy)),
           hint(), {StartedHere(copy)});
    }
  }
}

void DmaEngine::EnterScope(const std::vector<kernel::RefId>& refs) {
  for (int64_t ref : refs) {
    for (SemaphoreState& state : semaphores_[ref]) state = SemaphoreState{};
  }
}

void DmaEngine::LeaveScope(const Instr& instr, const std::vector<kernel::RefId>& refs) const {
  if (!detect()) return;
  for (int64_t ref : refs) {
    for (const Copy& copy : inflight_) {
      if (copy.src.ref == ref || copy.dst.ref == ref || copy.sem.ref == ref) {
        Fail(copy.span,
             fmt::format("the DMA {} started here in grid step {} is still in flight when the "
                         "pl.run_scoped at {} that allocated {} ends",
                         Describe(copy), TupleString(copy.point),
                         line_of_ ? line_of_(instr.span) : "?", RefName(ref)),
             {"wait for it inside the scoped body: its buffers and semaphores do not outlive "
              "the scope"},
             {{.message = "the pl.run_scoped ends after this body", .span = instr.span}});
      }
    }
    for (size_t i = 0; i < semaphores_[ref].size(); ++i) {
      const SemaphoreState& state = semaphores_[ref][i];
      if (state.count != 0) {
        SemaphoreSlot slot{.ref = static_cast<RefId>(ref), .index = static_cast<int64_t>(i)};
        Fail(state.signal_span,
             fmt::format("semaphore {} holds {} when the pl.run_scoped at {} that allocated it "
                         "ends (last signalled here in grid step {})",
                         SemName(slot), state.count, line_of_ ? line_of_(instr.span) : "?",
                         TupleString(state.signal_point)),
             {"every signal must be matched by a wait before the scope ends"},
             {{.message = "the pl.run_scoped that allocated it", .span = instr.span}});
      }
    }
  }
}

void DmaEngine::EndStep(const std::vector<RefId>& pipelined) const {
  if (!detect()) return;
  for (const Copy& copy : inflight_) {
    for (RefId ref : pipelined) {
      if (copy.src.ref != ref && copy.dst.ref != ref) continue;
      Fail(copy.span,
           fmt::format("the DMA {} started here in grid step {} is still in flight at the end "
                       "of the grid step, but {} is a pipelined block that the pipeline writes "
                       "back or replaces between steps",
                       Describe(copy), TupleString(copy.point), RefName(ref)),
           {"wait for copies that touch BlockSpec blocks in the same grid step, or copy "
            "through a scratch buffer, which persists across steps"});
    }
  }
}

void DmaEngine::Finish() const {
  if (!detect()) return;
  if (!inflight_.empty()) {
    const Copy& copy = inflight_.front();
    FailSplit(
        copy.span,
        fmt::format("the DMA {} started here in grid step {} was never waited: its semaphore "
                    "{} is non-zero when the kernel ends",
                    Describe(copy), TupleString(copy.point), SemName(copy.sem)),
        {"every DMA must be waited (`.wait()` on its descriptor, or on an equivalent one built "
         "in a later grid step) before the kernel ends; on a TPU a non-zero semaphore at exit "
         "crashes the program",
         inflight_.size() > 1 ? fmt::format("{} DMAs are still in flight", inflight_.size())
                              : "it is the only DMA still in flight"});
  }
  for (size_t r = 0; r < semaphores_.size(); ++r) {
    for (size_t i = 0; i < semaphores_[r].size(); ++i) {
      const SemaphoreState& state = semaphores_[r][i];
      if (state.count == 0) continue;
      SemaphoreSlot slot{.ref = static_cast<RefId>(r), .index = static_cast<int64_t>(i)};
      FailSplit(
          state.signal_span,
          fmt::format("semaphore {} holds {} when the kernel ends (last signalled here in grid "
                      "step {})",
                      SemName(slot), state.count, TupleString(state.signal_point)),
          {"every pl.semaphore_signal must be matched by a pl.semaphore_wait; on a TPU a "
           "non-zero semaphore at exit crashes the program"});
    }
  }
}

// ---- The executor's DMA and semaphore instructions ----------------------------------------

void Executor::RunDmaInstr(const Instr& instr) {
  PZ_CHECK(context_.dma != nullptr);
  DmaEngine& dma = *context_.dma;
  auto slot_of = [&](const kernel::RefPath& path) {
    Window window = Resolve(instr, path, false);
    const RefBuffer* buffer = context_.refs[path.ref];
    return SemaphoreSlot{.ref = path.ref, .index = window.data.offset() - buffer->data.offset()};
  };
  auto slot = [&]() { return slot_of(instr.ref); };
  // A DMA or signal aimed at a device: the emulator runs one, whose id is 0 on every mesh axis.
  if (instr.device_operands > 0) {
    std::vector<int64_t> id;
    size_t first = instr.operands.size() - static_cast<size_t>(instr.device_operands);
    for (size_t i = first; i < instr.operands.size(); ++i)
      id.push_back(ScalarInt(instr.operands[i]));
    if (std::any_of(id.begin(), id.end(), [](int64_t v) { return v != 0; })) {
      Fail(instr, EmulationError::Kind::kRuntimeError,
           fmt::format("this {} targets device {}, but the emulator runs one device: every "
                       "device id is 0 (the only device of a mesh of size 1)",
                       instr.op == kernel::Op::kDmaStart ? "remote DMA" : "semaphore signal",
                       TupleString(id)),
           {"compute neighbours modulo the number of devices on the axis (`lax.rem(my_id + 1, "
            "num_devices)`), as a kernel must on a TPU slice too"});
    }
  }
  auto endpoint = [&](const kernel::RefPath& path, bool is_write) {
    Window window = Resolve(instr, path, is_write);
    bool add = instr.op == kernel::Op::kDmaStart && instr.add;
    if (!is_write || add) NoteRead(instr, path.ref, window);  // `add` reads the destination
    const RefBuffer& buffer = *context_.refs[path.ref];
    return DmaEndpoint{.ref = path.ref,
                       .data = window.data,
                       .shadow = window.initialized,
                       .tracked = window.tracked,
                       .region = RegionOf(buffer, window.data)};
  };
  switch (instr.op) {
    case kernel::Op::kDmaStart: {
      DmaEndpoint src = endpoint(instr.copy[0], false);
      DmaEndpoint dst = endpoint(instr.copy[1], true);
      std::optional<SemaphoreSlot> send;
      if (instr.send_sem.ref >= 0) send = slot_of(instr.send_sem);
      dma.Start(instr, std::move(src), std::move(dst), slot(), instr.add, send);
      return;
    }
    case kernel::Op::kDmaWait:
      dma.Wait(instr, slot(), instr.bytes);
      return;
    case kernel::Op::kSemaphoreSignal:
      dma.Signal(instr, slot(), ScalarInt(instr.operands[0]));
      return;
    case kernel::Op::kSemaphoreWait:
      dma.SemaphoreWait(instr, slot(), ScalarInt(instr.operands[0]), instr.decrement);
      return;
    case kernel::Op::kSemaphoreRead: {
      int64_t count = std::clamp<int64_t>(dma.Read(slot()), std::numeric_limits<int32_t>::min(),
                                          std::numeric_limits<int32_t>::max());
      env_[instr.results[0]] = array::Array::Scalar(array::DType::kInt32, double(count));
      return;
    }
    case kernel::Op::kRunScoped: {
      std::vector<kernel::RefId> refs = instr.scoped;
      for (kernel::RefId ref : refs) {
        RefBuffer& buffer = *context_.refs[ref];
        const kernel::RefType& type = function_.refs[ref];
        if (type.space == kernel::MemorySpace::kSemaphore) continue;
        buffer.data.Assign(Poison(type.shape, type.dtype, context_.zero_uninitialized));
        if (buffer.tracked) {
          buffer.initialized.Assign(array::Zeros(type.shape, array::DType::kUInt8));
        }
      }
      dma.EnterScope(refs);
      const kernel::Region& region = instr.regions[0];
      RunRegion(region);
      dma.LeaveScope(instr, refs);
      for (size_t i = 0; i < instr.results.size(); ++i) {
        array::Array v = env_[region.yields[i]];
        v.set_weak_type(function_.values[instr.results[i]].weak);
        env_[instr.results[i]] = std::move(v);
      }
      return;
    }
    default:
      PZ_UNREACHABLE();
  }
}

}  // namespace pz::tpu
