// Box copies, poison shadows and write stamps of the emulated core's memory (see memory.h).
#include "tpu/memory.h"

#include <algorithm>

namespace pz::tpu {

using array::Array;

void CopyBox(const Array& src, const int64_t* src_lo, Array& dst, const int64_t* dst_lo,
             const int64_t* extent, size_t rank) {
  size_t item = array::ItemSize(src.dtype());
  for (size_t d = 0; d < rank; ++d) {
    if (extent[d] <= 0) return;
  }
  const std::byte* s = src.raw();
  std::byte* t = dst.raw();
  const std::vector<int64_t>& ss = src.strides();
  const std::vector<int64_t>& ts = dst.strides();
  int64_t s_base = 0, t_base = 0;
  for (size_t d = 0; d < rank; ++d) {
    s_base += src_lo[d] * ss[d];
    t_base += dst_lo[d] * ts[d];
  }
  if (rank == 0) {
    std::memcpy(t, s, item);
    return;
  }
  size_t last = rank - 1;
  bool rows = ss[last] == 1 && ts[last] == 1;
  if (rows) {
    // Leading dimensions whose rows follow one another in both arrays make one run of memory:
    // a whole block of a row-major array (or any box spanning full rows) is a single memcpy.
    int64_t run = extent[last];
    size_t d = last;
    while (d > 0 && ss[d - 1] == run && ts[d - 1] == run) run *= extent[--d];
    if (d == 0) {
      std::memcpy(t + t_base * static_cast<int64_t>(item), s + s_base * static_cast<int64_t>(item),
                  static_cast<size_t>(run) * item);
      return;
    }
  }
  int64_t counter[array::kMaxRank] = {};
  while (true) {
    int64_t so = s_base, to = t_base;
    for (size_t d = 0; d < last; ++d) {
      so += counter[d] * ss[d];
      to += counter[d] * ts[d];
    }
    if (rows) {
      std::memcpy(t + to * item, s + so * item, static_cast<size_t>(extent[last]) * item);
    } else {
      for (int64_t i = 0; i < extent[last]; ++i) {
        std::memcpy(t + (to + i * ts[last]) * item, s + (so + i * ss[last]) * item, item);
      }
    }
    size_t d = last;
    while (d-- > 0) {
      if (++counter[d] < extent[d]) break;
      counter[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) return;
  }
}

int64_t RowOffset(const Array& a, const int64_t* lo, const int64_t* counter, size_t rank) {
  int64_t o = 0;
  for (size_t d = 0; d < rank; ++d) o += (lo[d] + (d + 1 < rank ? counter[d] : 0)) * a.strides()[d];
  return o;
}

void FillBox(Array& shadow, const int64_t* lo, const int64_t* extent, size_t rank, uint8_t value) {
  uint8_t* p = shadow.data<uint8_t>();
  const std::vector<int64_t>& strides = shadow.strides();
  if (rank > 0 && strides[rank - 1] == 1) {
    // Rows that follow one another (a box of whole trailing dimensions, such as a whole block)
    // are one run, as in CopyBox.
    int64_t run = extent[rank - 1];
    size_t d = rank - 1;
    while (d > 0 && strides[d - 1] == run) run *= extent[--d];
    if (d == 0) {
      int64_t start = 0;
      for (size_t e = 0; e < rank; ++e) start += lo[e] * strides[e];
      if (run > 0) std::memset(p + start, value, static_cast<size_t>(run));
      return;
    }
  }
  size_t n = rank ? static_cast<size_t>(extent[rank - 1]) : 1;
  ForEachRow(extent, rank, [&](const int64_t* counter) {
    std::memset(p + RowOffset(shadow, lo, counter, rank), value, n);
  });
}

void StampWriter(const Array* shadow, const int64_t* shadow_lo, Array& writer, const int64_t* lo,
                 const int64_t* extent, size_t rank, int64_t step) {
  int32_t* w = writer.data<int32_t>();
  const uint8_t* f = shadow ? shadow->data<uint8_t>() : nullptr;
  int64_t n = rank ? extent[rank - 1] : 1;
  int64_t ws = rank ? writer.strides()[rank - 1] : 0;
  int64_t fs = f && rank ? shadow->strides()[rank - 1] : 0;
  auto stamp = static_cast<int32_t>(step);
  ForEachRow(extent, rank, [&](const int64_t* counter) {
    int32_t* wr = w + RowOffset(writer, lo, counter, rank);
    if (!f) {
      for (int64_t j = 0; j < n; ++j) wr[j * ws] = stamp;
      return;
    }
    const uint8_t* fr = f + RowOffset(*shadow, shadow_lo, counter, rank);
    if (ws == 1 && fs == 1) {  // the usual case, in vector lanes
      for (int64_t j = 0; j < n; ++j) wr[j] = fr[j] ? stamp : kNeverWritten;
      return;
    }
    for (int64_t j = 0; j < n; ++j) wr[j * ws] = fr[j * fs] ? stamp : kNeverWritten;
  });
}

void ShadowFromWriter(const Array& writer, const int64_t* lo, Array& shadow,
                      const int64_t* shadow_lo, const int64_t* extent, size_t rank) {
  const int32_t* w = writer.data<int32_t>();
  uint8_t* f = shadow.data<uint8_t>();
  int64_t n = rank ? extent[rank - 1] : 1;
  int64_t ws = rank ? writer.strides()[rank - 1] : 0;
  int64_t fs = rank ? shadow.strides()[rank - 1] : 0;
  ForEachRow(extent, rank, [&](const int64_t* counter) {
    const int32_t* wr = w + RowOffset(writer, lo, counter, rank);
    uint8_t* fr = f + RowOffset(shadow, shadow_lo, counter, rank);
    for (int64_t j = 0; j < n; ++j) fr[j * fs] = wr[j * ws] != kNeverWritten;
  });
}

Array FullRank(const Array& buffer, const kernel::BlockMapping& op) {
  array::Shape shape;
  using kernel::BlockDim;
  for (const BlockDim& b : op.block)
    shape.push_back(b.kind == BlockDim::Kind::kSqueezed ? 1 : b.size);
  return buffer.View(shape, array::ContiguousStrides(shape), buffer.offset());
}

void StampBox(Array& stamps, const int64_t* lo, const int64_t* extent, size_t rank, int32_t value) {
  int32_t* p = stamps.data<int32_t>();
  int64_t n = rank ? extent[rank - 1] : 1;
  ForEachRow(extent, rank, [&](const int64_t* counter) {
    int32_t* row = p + RowOffset(stamps, lo, counter, rank);
    std::fill(row, row + n, value);
  });
}

}  // namespace pz::tpu
