// Fibers for the host device's blocks (see host_fibers.h). Each thread starts on its own stack
// and moves to and from the block's scheduler loop by a switch of stacks: on x86-64 a few
// instructions of our own that keep what the ABI says a call preserves; elsewhere ucontext's
// swapcontext, which also sets the signal mask with a system call each time (on x86-64 that made
// the roofline solution's whole run on host-sm80 take 17 s, against 8 s with ours). Under
// AddressSanitizer every switch is announced, so that it follows the change of stacks.
#include "cuda/host_fibers.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "cuda/device.h"

#if defined(__SANITIZE_ADDRESS__)
#define PZ_FIBERS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PZ_FIBERS_ASAN 1
#endif
#endif
#ifdef PZ_FIBERS_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace pz::cuda {

// Named, not anonymous: BlockFibers::State holds these.
namespace host_fibers {

// (PZ_FIBERS_UCONTEXT takes the ucontext form on x86-64 too, to try it there.)
#if defined(__x86_64__) && defined(__ELF__) && !defined(PZ_FIBERS_UCONTEXT)
// pz_cuda_fiber_switch(&from, to): pushes the callee-saved registers and the SSE and x87 control
// words, stores the stack pointer in `from`, takes `to` as the stack pointer, and pops the same
// from there (a stack Context::Start laid out, or one a switch left).
extern "C" void pz_cuda_fiber_switch(void** from, void* to);
asm(R"(
  .text
  .p2align 4
  .globl pz_cuda_fiber_switch
  .hidden pz_cuda_fiber_switch
  .type pz_cuda_fiber_switch, @function
pz_cuda_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size pz_cuda_fiber_switch, .-pz_cuda_fiber_switch
)");

// Where a fiber or the scheduler stopped: its stack pointer.
struct Context {
  void* sp = nullptr;

  // Sets this up to call entry() on [stack, stack + bytes) at the first switch to it.
  void Start(char* stack, size_t bytes, void (*entry)()) {
    auto top = reinterpret_cast<uintptr_t>(stack + bytes) & ~uintptr_t{15};
    // From the stack pointer up: the two control words, six registers, entry() as the return
    // address, and a null return address for entry() itself, which never returns. At entry()
    // the stack pointer is then 8 past a multiple of 16, as after a call.
    auto* frame = reinterpret_cast<uint64_t*>(top - 72);
    uint32_t mxcsr = 0;
    uint16_t fcw = 0;
    asm volatile("stmxcsr %0" : "=m"(mxcsr));
    asm volatile("fnstcw %0" : "=m"(fcw));
    frame[0] = mxcsr | static_cast<uint64_t>(fcw) << 32;
    for (int i = 1; i <= 6; ++i) frame[i] = 0;
    frame[7] = reinterpret_cast<uint64_t>(entry);
    frame[8] = 0;
    sp = frame;
  }
};

void Switch(Context& from, Context& to) { pz_cuda_fiber_switch(&from.sp, to.sp); }
#else
struct Context {
  ucontext_t context;

  void Start(char* stack, size_t bytes, void (*entry)()) {
    getcontext(&context);
    context.uc_stack.ss_sp = stack;
    context.uc_stack.ss_size = bytes;
    context.uc_link = nullptr;
    makecontext(&context, entry, 0);
  }
};

void Switch(Context& from, Context& to) { swapcontext(&from.context, &to.context); }
#endif

}  // namespace host_fibers

struct BlockFibers::State {
  using Context = host_fibers::Context;

  struct Barrier {
    State* owner = nullptr;
    unsigned expected = 0;  // the threads that have not returned
    unsigned arrived = 0;
    std::vector<unsigned> waiting;
    const char* name = "";
  };
  struct Fiber {
    Context context;
    char* stack = nullptr;       // its lowest usable byte
    void* fake_stack = nullptr;  // AddressSanitizer's record of the stack while switched away
    bool done = false;
    Barrier* waiting_at = nullptr;
  };

  unsigned capacity = 0;
  size_t stack_bytes = 0;
  char* region = nullptr;
  size_t region_bytes = 0;
  std::vector<Fiber> fibers;
  Barrier block;
  std::vector<Barrier> warps;
  std::deque<unsigned> ready;
  unsigned current = 0;
  Context scheduler;
  void (*body)(void*, unsigned) = nullptr;
  void* context = nullptr;
  // The scheduler's own stack, for AddressSanitizer's announcements.
  const void* scheduler_bottom = nullptr;
  size_t scheduler_size = 0;
  void* scheduler_fake_stack = nullptr;

  void Release(Barrier& barrier) {
    for (unsigned waiter : barrier.waiting) {
      fibers[waiter].waiting_at = nullptr;
      ready.push_back(waiter);
    }
    barrier.waiting.clear();
    barrier.arrived = 0;
  }

  // A thread returned: it no longer holds up its block's barrier or its warp's.
  void Leave(Barrier& barrier) {
    --barrier.expected;
    if (barrier.arrived > 0 && barrier.arrived == barrier.expected) Release(barrier);
  }

  // From the scheduler loop into fiber `index`, until it waits or returns.
  void Resume(unsigned index) {
    current = index;
    Fiber& fiber = fibers[index];
#ifdef PZ_FIBERS_ASAN
    __sanitizer_start_switch_fiber(&scheduler_fake_stack, fiber.stack, stack_bytes);
#endif
    host_fibers::Switch(scheduler, fiber.context);
#ifdef PZ_FIBERS_ASAN
    __sanitizer_finish_switch_fiber(scheduler_fake_stack, nullptr, nullptr);
#endif
  }

  // From the running fiber back to the scheduler loop; returns when it is resumed.
  void Suspend() {
    Fiber& fiber = fibers[current];
#ifdef PZ_FIBERS_ASAN
    __sanitizer_start_switch_fiber(&fiber.fake_stack, scheduler_bottom, scheduler_size);
#endif
    host_fibers::Switch(fiber.context, scheduler);
#ifdef PZ_FIBERS_ASAN
    __sanitizer_finish_switch_fiber(fiber.fake_stack, nullptr, nullptr);
#endif
  }
};

namespace {

// The fiber being started learns its block from here.
thread_local BlockFibers::State* starting = nullptr;

void FiberMain() {
  BlockFibers::State* state = starting;
#ifdef PZ_FIBERS_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &state->scheduler_bottom, &state->scheduler_size);
#endif
  const unsigned thread = state->current;
  state->body(state->context, thread);
  state->fibers[thread].done = true;
  state->Leave(state->block);
  state->Leave(state->warps[thread / 32]);
#ifdef PZ_FIBERS_ASAN
  // This stack is done with: its fake frames go.
  __sanitizer_start_switch_fiber(nullptr, state->scheduler_bottom, state->scheduler_size);
#endif
  host_fibers::Context finished;  // never resumed
  host_fibers::Switch(finished, state->scheduler);
}

}  // namespace

BlockFibers::BlockFibers(unsigned threads, size_t stack_bytes) : state_(std::make_unique<State>()) {
  State& s = *state_;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  s.capacity = threads;
  s.stack_bytes = (stack_bytes + page - 1) / page * page;
  // Each stack with an inaccessible page below it, so that an overflow faults rather than
  // running into the next thread's stack.
  const size_t slice = s.stack_bytes + page;
  s.region_bytes = slice * threads;
  void* region = mmap(nullptr, s.region_bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED) {
    throw DeviceError(fmt::format("could not map {} bytes of stacks for {} host threads: {}",
                                  s.region_bytes, threads, std::strerror(errno)));
  }
  s.region = static_cast<char*>(region);
  s.fibers.resize(threads);
  for (unsigned t = 0; t < threads; ++t) {
    char* base = s.region + slice * t;
    mprotect(base, page, PROT_NONE);
    s.fibers[t].stack = base + page;
  }
  s.block.owner = &s;
  s.block.name = "__syncthreads()";
  s.warps.resize((threads + 31) / 32);
  for (State::Barrier& warp : s.warps) {
    warp.owner = &s;
    warp.name = "its warp's barrier";
  }
}

BlockFibers::~BlockFibers() {
  if (state_->region == nullptr) return;
#ifdef PZ_FIBERS_ASAN
  // Leave no marks behind on addresses a later mapping may reuse.
  ASAN_UNPOISON_MEMORY_REGION(state_->region, state_->region_bytes);
#endif
  munmap(state_->region, state_->region_bytes);
}

void* BlockFibers::BlockSync() { return &state_->block; }

void* BlockFibers::WarpSync(unsigned thread) { return &state_->warps[thread / 32]; }

void BlockFibers::Sync(void* context) {
  State::Barrier& barrier = *static_cast<State::Barrier*>(context);
  State& s = *barrier.owner;
  if (++barrier.arrived == barrier.expected) {
    s.Release(barrier);  // the last to arrive goes on without a switch
    return;
  }
  barrier.waiting.push_back(s.current);
  s.fibers[s.current].waiting_at = &barrier;
  s.Suspend();
}

void BlockFibers::Run(unsigned threads, void (*body)(void*, unsigned), void* context,
                      bool descending) {
  State& s = *state_;
  if (threads > s.capacity) {
    throw DeviceError(
        fmt::format("a block of {} threads, but room was made for {}", threads, s.capacity));
  }
  s.body = body;
  s.context = context;
  s.block.expected = threads;
  s.block.arrived = 0;
  s.block.waiting.clear();
  for (unsigned w = 0; w < s.warps.size(); ++w) {
    State::Barrier& warp = s.warps[w];
    warp.expected = 32 * w < threads ? std::min(32u, threads - 32 * w) : 0;
    warp.arrived = 0;
    warp.waiting.clear();
  }
  s.ready.clear();
  for (unsigned t = 0; t < threads; ++t) {
    State::Fiber& fiber = s.fibers[t];
    fiber.done = false;
    fiber.waiting_at = nullptr;
#ifdef PZ_FIBERS_ASAN
    // The last block's frames on this stack never returned: their red zones are still marked.
    ASAN_UNPOISON_MEMORY_REGION(fiber.stack, s.stack_bytes);
#endif
    fiber.context.Start(fiber.stack, s.stack_bytes, FiberMain);
    s.ready.push_back(descending ? threads - 1 - t : t);
  }
  while (!s.ready.empty()) {
    const unsigned next = s.ready.front();
    s.ready.pop_front();
    starting = &s;
    s.Resume(next);
  }
  // Everyone left waiting: barriers that can no longer complete (a GPU would hang).
  std::vector<std::string> stuck;
  for (unsigned t = 0; t < threads; ++t) {
    const State::Fiber& fiber = s.fibers[t];
    if (fiber.done) continue;
    if (stuck.size() == 4) {
      stuck.push_back("...");
      break;
    }
    stuck.push_back(fmt::format("thread {} at {}", t, fiber.waiting_at->name));
  }
  if (!stuck.empty()) {
    throw DeviceError(fmt::format(
        "the block's threads wait at barriers that can never complete ({}): a GPU would hang "
        "here",
        fmt::join(stuck, ", ")));
  }
}

}  // namespace pz::cuda
