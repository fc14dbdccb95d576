// `--stats` rendering of the DMA counters and the `--timeline` of DMA and semaphore operations.
#include <fmt/format.h>

#include "tpu/dma.h"

namespace pz::tpu {

namespace {

std::string_view ShortSpace(kernel::MemorySpace space) {
  return space == kernel::MemorySpace::kAny ? "HBM" : kernel::MemorySpaceName(space);
}

std::string_view EventName(DmaEvent::Kind kind) {
  switch (kind) {
    case DmaEvent::Kind::kStart:
      return "start";
    case DmaEvent::Kind::kWait:
      return "wait";
    case DmaEvent::Kind::kSignal:
      return "signal";
    case DmaEvent::Kind::kSemaphoreWait:
      return "sem_wait";
  }
  return "?";
}

bool SameEvent(const DmaEvent& a, const DmaEvent& b) {
  return a.kind == b.kind && a.step == b.step && a.span == b.span && a.amount == b.amount &&
         a.what == b.what;
}

}  // namespace

std::pair<int64_t, int64_t> DmaHbmBytes(const Counters& counters) {
  int64_t read = 0, written = 0;
  for (const auto& [spaces, bytes] : counters.dma_bytes) {
    if (spaces.first == kernel::MemorySpace::kAny) read += bytes;
    if (spaces.second == kernel::MemorySpace::kAny) written += bytes;
  }
  return {read, written};
}

std::string FormatDmaStats(const Counters& counters, bool timeline,
                           const std::function<std::string(SourceSpan)>& line_of) {
  std::string out;
  if (counters.dma_count > 0) {
    out += fmt::format("stats:   DMA: {} cop{}", counters.dma_count,
                       counters.dma_count == 1 ? "y" : "ies");
    int64_t total = 0;
    for (const auto& [spaces, bytes] : counters.dma_bytes) {
      out +=
          fmt::format(", {}->{} {} B", ShortSpace(spaces.first), ShortSpace(spaces.second), bytes);
      total += bytes;
    }
    out += fmt::format("; {} B in flight while the kernel computed ({:.0f}%)\n",
                       counters.dma_bytes_overlapped,
                       total > 0 ? 100.0 * counters.dma_bytes_overlapped / total : 0.0);
  }
  if (!timeline || counters.timeline.empty()) return out;
  out += "timeline: per grid step, `op what bytes-or-count @line`\n";
  for (size_t i = 0; i < counters.timeline.size();) {
    int64_t step = counters.timeline[i].step;
    std::string line = fmt::format("  {}:", TupleString(counters.timeline[i].point));
    const char* separator = " ";
    while (i < counters.timeline.size() && counters.timeline[i].step == step) {
      const DmaEvent& e = counters.timeline[i];
      // A run of identical events (a loop's waits) prints once with a repeat count.
      size_t repeat = 1;
      while (i + repeat < counters.timeline.size() && SameEvent(counters.timeline[i + repeat], e)) {
        ++repeat;
      }
      bool bytes = e.kind == DmaEvent::Kind::kStart || e.kind == DmaEvent::Kind::kWait;
      line += fmt::format("{}{} {} {}{} @{}{}", separator, EventName(e.kind), e.what, e.amount,
                          bytes ? "B" : "", line_of ? line_of(e.span) : "?",
                          repeat > 1 ? fmt::format(" x{}", repeat) : "");
      separator = "; ";
      i += repeat;
    }
    out += line + "\n";
  }
  if (counters.timeline_dropped > 0) {
    out += fmt::format("  ... {} more events not recorded\n", counters.timeline_dropped);
  }
  return out;
}

}  // namespace pz::tpu
