// The DMA engine and semaphores of the emulated core, and the detector that turns DMA mistakes
// into errors (pallas-semantics.md §7, §10.5). DMA semaphores count bytes: a copy signals its
// semaphore with its size when its data lands, and a wait blocks until the count reaches its own
// copy's size, then subtracts it. Data lands at the start (eager) or, by default, at the wait
// that needs it (on_wait: the copies on that semaphore land oldest first). A single core cannot
// block, so a wait that nothing in flight can satisfy is reported as a deadlock instead of
// hanging. Copies stay "in flight" from their start until waits take their bytes (oldest copy
// first, whatever descriptor waits); while in flight, reading their destination, writing their
// source or destination, or starting an overlapping copy is a race. At the end of the kernel
// every copy must have been waited and every semaphore must be zero. In `interpret` semantics
// (JAX interpret=True) copies land at the start and nothing blocks or is checked.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "array/array.h"
#include "kernel/ir.h"
#include "support/source.h"
#include "tpu/executor.h"
#include "tpu/options.h"

namespace pz::tpu {

// The memory a view of a buffer reaches: the bounding box of its elements, per dimension of the
// buffer (inclusive bounds). Strided views are over-approximated by their box.
struct MemRegion {
  const RefBuffer* buffer = nullptr;
  size_t rank = 0;
  std::array<int64_t, array::kMaxRank> lo{}, hi{};  // the first `rank` entries
  bool empty = true;
};
MemRegion RegionOf(const RefBuffer& buffer, const array::Array& view);
bool Overlaps(const MemRegion& a, const MemRegion& b);

// One end of a copy, resolved against the buffers of this grid step.
struct DmaEndpoint {
  kernel::RefId ref = -1;
  array::Array data;    // a view of the buffer
  array::Array shadow;  // its initialised-shadow view, when `tracked`
  bool tracked = false;
  MemRegion region;
};

// One semaphore: a ref and the element of it (arrays of semaphores).
struct SemaphoreSlot {
  kernel::RefId ref = -1;
  int64_t index = 0;
};

class DmaEngine {
 public:
  // `line_of` renders a span as "line 12" for messages that name a second place.
  DmaEngine(const kernel::Function& kernel, const EmulatorOptions& options,
            std::function<std::string(SourceSpan)> line_of, Counters& counters);

  // The grid step now running (for messages and the time-line).
  void SetStep(int64_t step, const std::vector<int64_t>& point);

  // `sem` is signalled when the data lands. A remote copy (to this device: the emulator runs
  // one) also signals `send` when its data has left the source, which a wait_send waits for.
  void Start(const kernel::Instr& instr, DmaEndpoint src, DmaEndpoint dst, SemaphoreSlot sem,
             bool add, std::optional<SemaphoreSlot> send = std::nullopt);
  void Wait(const kernel::Instr& instr, SemaphoreSlot sem, int64_t bytes);
  void Signal(const kernel::Instr& instr, SemaphoreSlot sem, int64_t amount);
  void SemaphoreWait(const kernel::Instr& instr, SemaphoreSlot sem, int64_t value, bool decrement);
  // pl.semaphore_read: the count, after landing the copies in flight on `sem` (on_wait).
  int64_t Read(SemaphoreSlot sem);

  // True while some copy is in flight (the access checks are skipped otherwise).
  bool busy() const { return !inflight_.empty(); }
  // Race check of a kernel load (`is_write` false) or store of `ref` reaching `region`.
  // Loads and stores of more than one element also count as compute that copies in flight
  // overlap (Counters::dma_bytes_overlapped).
  void CheckAccess(const kernel::Instr& instr, kernel::RefId ref, const MemRegion& region,
                   bool is_write);

  // pl.run_scoped: its semaphores start at zero; at the end no copy may still use its buffers
  // and its semaphores must be back at zero.
  void EnterScope(const std::vector<kernel::RefId>& refs);
  void LeaveScope(const kernel::Instr& instr, const std::vector<kernel::RefId>& refs) const;
  // End of a grid step: the pipeline is about to write back or replace the block buffers of
  // `pipelined` refs, so no copy may still use them.
  void EndStep(const std::vector<kernel::RefId>& pipelined) const;
  // End of the kernel: every copy waited, every semaphore zero.
  void Finish() const;
  // With `--cores 2`: which part of the grid this core runs, for the errors a chain of copies
  // or signals broken by the split gives (a wait that never completes, a copy never waited).
  void SetCoreShare(std::string note) { core_share_ = std::move(note); }

  // Called when a copy's data lands (after it is written), with the linearised grid step that
  // started it: the pipeline stamps pl.ANY outputs' writers and the megacore HBM accesses.
  std::function<void(const DmaEndpoint& src, const DmaEndpoint& dst, int64_t step, SourceSpan span)>
      on_land;

 private:
  struct Copy {
    DmaEndpoint src, dst;
    SemaphoreSlot sem;
    int64_t bytes = 0;
    int64_t unconsumed = 0;  // bytes not yet taken by a wait
    bool landed = false;
    bool add = false;
    // The send half of a remote copy: it moves no data and only signals `sem` (the send
    // semaphore); while in flight, its source must not be written.
    bool send_receipt = false;
    SourceSpan span;
    std::vector<int64_t> point;
    int64_t accesses_at_start = 0;  // vector_accesses_ when the copy started
    int64_t step = 0;               // linearised `point`
  };
  // Where a semaphore was last changed, for messages.
  struct SemaphoreState {
    int64_t count = 0;
    SourceSpan last_span;  // last signal, DMA start or wait
    std::vector<int64_t> last_point;
    bool touched = false;
    SourceSpan signal_span;  // last signal or DMA start: who left a non-zero count
    std::vector<int64_t> signal_point;
  };

  bool detect() const { return options_.semantics == Semantics::kTpu; }
  void Land(Copy& copy);
  SemaphoreState& State(SemaphoreSlot sem);
  const SemaphoreState& State(SemaphoreSlot sem) const;
  std::string SemName(SemaphoreSlot sem) const;       // "`sems[1]`"
  std::string ShortSemName(SemaphoreSlot sem) const;  // "sems[1]"
  std::string RefName(kernel::RefId ref) const;
  std::string ShortViewName(kernel::RefId ref, const MemRegion& region) const;  // "buf[1]"
  std::string ViewName(kernel::RefId ref, const MemRegion& region) const;       // "`buf[1]`"
  std::string Describe(const Copy& copy) const;  // "`x_hbm[0:8]` -> `buf` (512 bytes)"
  std::string Where(const Copy& copy) const;     // "line 12 in grid step (0,)"
  std::string Step() const;
  void Record(DmaEvent::Kind kind, const kernel::Instr& instr, int64_t amount, std::string what);
  // `related` points at a second place (the DMA still in flight, the last signal).
  [[noreturn]] void Fail(SourceSpan span, std::string message, std::vector<std::string> notes = {},
                         std::vector<Note> related = {}) const;
  // Fail, with the core's share of the grid (SetCoreShare) as a last note under `--cores 2`.
  [[noreturn]] void FailSplit(SourceSpan span, std::string message,
                              std::vector<std::string> notes = {},
                              std::vector<Note> related = {}) const;
  // A note at the start of `copy`: "the DMA `x` -> `buf` (512 bytes) started here in grid step
  // (0,)".
  Note StartedHere(const Copy& copy) const;

  std::string core_share_;  // SetCoreShare

  // A copy whose signal a wait of the current grid step took: when a read then races with a
  // copy on another semaphore, the note names the wait that took the wrong signal.
  struct Taken {
    SourceSpan wait_span;
    SemaphoreSlot sem;
    std::string copy;  // Describe() of the copy
    SourceSpan copy_span;
    std::vector<int64_t> copy_point;
  };
  // The wait of this grid step that took another semaphore's copy than `copy`'s, as a note at
  // that wait; nullopt when no wait of this step did.
  std::optional<Note> WaitThatTookAnother(const Copy& copy) const;

  const kernel::Function& kernel_;
  const EmulatorOptions& options_;
  std::function<std::string(SourceSpan)> line_of_;
  Counters& counters_;
  std::vector<std::vector<SemaphoreState>> semaphores_;  // per ref (empty for other refs)
  std::vector<Copy> inflight_;                           // in start order
  std::vector<Taken> taken_;                             // this grid step's waits, in order
  int64_t vector_accesses_ = 0;  // vector loads and stores while copies were in flight
  int64_t step_ = 0;
  std::vector<int64_t> point_;
};

// The part of Counters::hbm_bytes_read and hbm_bytes_written that the kernel's own DMAs moved
// (copies from and to `pl.ANY` refs).
std::pair<int64_t, int64_t> DmaHbmBytes(const Counters& counters);

// `--stats` lines for the DMAs of one call ("" when it started none and used no semaphore), and
// with `timeline` its starts and waits grouped per grid step (a run of identical events once,
// with " xN"); `line_of` renders a span as "12".
std::string FormatDmaStats(const Counters& counters, bool timeline,
                           const std::function<std::string(SourceSpan)>& line_of);

}  // namespace pz::tpu
