// The .npy format: magic, version, a little Python-dict header, then raw little-endian data.
#include "array/npy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

#include "array/element.h"
#include "array/shape_ops.h"

namespace pz::array {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

const char* Descr(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "|b1";
    case DType::kInt8:
      return "|i1";
    case DType::kUInt8:
      return "|u1";
    case DType::kInt16:
      return "<i2";
    case DType::kUInt16:
      return "<u2";
    case DType::kInt32:
      return "<i4";
    case DType::kUInt32:
      return "<u4";
    case DType::kFloat16:
      return "<f2";
    case DType::kBFloat16:
    case DType::kFloat32:
      return "<f4";
    case DType::kInt4:  // numpy has no 4-bit type: saved widened
      return "|i1";
    case DType::kUInt4:
      return "|u1";
  }
  return "<f4";
}

// Extracts the value text of `key` from the header dict ("'descr': '<f4', ...").
std::string HeaderField(const std::string& header, const std::string& key,
                        const std::string& path) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) {
    ThrowValueError(
        fmt::format("`{}` is not a valid .npy file: its header has no '{}'", path, key));
  }
  size_t colon = header.find(':', at);
  size_t start = header.find_first_not_of(' ', colon + 1);
  size_t end = start;
  if (header[start] == '(') {
    end = header.find(')', start) + 1;
  } else if (header[start] == '\'') {
    end = header.find('\'', start + 1) + 1;
  } else {
    end = header.find_first_of(",}", start);
  }
  return header.substr(start, end - start);
}

}  // namespace

void SaveNpy(const std::string& path, const Array& input) {
  Array a = input.dtype() == DType::kBFloat16 ? input.AsType(DType::kFloat32) : input.Contiguous();
  std::string shape = a.rank() == 1 ? fmt::format("({},)", a.shape()[0])
                                    : fmt::format("({})", fmt::join(a.shape(), ", "));
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                   Descr(a.dtype()), shape);
  // Pad so that magic (6) + version (2) + length (2) + header is a multiple of 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) ThrowValueError(fmt::format("cannot write `{}`", path));
  out.write(kMagic, 6);
  out.put(1);
  out.put(0);
  auto length = static_cast<uint16_t>(header.size());
  out.put(static_cast<char>(length & 0xFF));
  out.put(static_cast<char>(length >> 8));
  out << header;
  out.write(reinterpret_cast<const char*>(a.raw()),
            static_cast<std::streamsize>(a.size() * static_cast<int64_t>(ItemSize(a.dtype()))));
  if (!out) ThrowValueError(fmt::format("cannot write `{}`", path));
}

Array LoadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) ThrowValueError(fmt::format("cannot read `{}`: no such file or not readable", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string bytes = buffer.str();
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) {
    ThrowValueError(fmt::format("`{}` is not a .npy file (bad magic bytes)", path));
  }
  int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    header_start = 10;
  } else if ((major == 2 || major == 3) && bytes.size() >= 12) {
    header_len = 0;
    for (int i = 3; i >= 0; --i)
      header_len = header_len << 8 | static_cast<unsigned char>(bytes[8 + i]);
    header_start = 12;
  } else {
    ThrowValueError(
        fmt::format("`{}` uses .npy format version {}, which is not supported", path, major));
  }
  if (header_start + header_len > bytes.size()) {
    ThrowValueError(fmt::format("`{}` is truncated", path));
  }
  std::string header = bytes.substr(header_start, header_len);
  std::string descr = HeaderField(header, "descr", path);
  bool fortran = HeaderField(header, "fortran_order", path) == "True";
  std::string shape_text = HeaderField(header, "shape", path);
  Shape shape;
  for (size_t i = 0; i < shape_text.size();) {
    if (std::isdigit(static_cast<unsigned char>(shape_text[i]))) {
      size_t end = shape_text.find_first_not_of("0123456789", i);
      shape.push_back(std::stoll(shape_text.substr(i, end - i)));
      i = end;
    } else {
      ++i;
    }
  }
  descr = descr.substr(1, descr.size() - 2);  // strip quotes
  if (descr.size() < 3 || descr[0] == '>') {
    ThrowValueError(
        fmt::format("`{}` holds dtype '{}', which is not supported (only "
                    "little-endian bool, int, uint and float data)",
                    path, descr));
  }
  std::string kind = descr.substr(1);
  struct Source {
    const char* kind;
    DType dtype;
    size_t bytes;
  };
  static constexpr Source kSources[] = {
      {"b1", DType::kBool, 1},   {"i1", DType::kInt8, 1},    {"u1", DType::kUInt8, 1},
      {"i2", DType::kInt16, 2},  {"u2", DType::kUInt16, 2},  {"i4", DType::kInt32, 4},
      {"u4", DType::kUInt32, 4}, {"f2", DType::kFloat16, 2}, {"f4", DType::kFloat32, 4},
      {"i8", DType::kInt32, 8},  {"u8", DType::kUInt32, 8},  {"f8", DType::kFloat32, 8},
  };
  const Source* source = nullptr;
  for (const Source& s : kSources) {
    if (kind == s.kind) source = &s;
  }
  if (source == nullptr) {
    ThrowValueError(fmt::format("`{}` holds dtype '{}', which is not supported", path, descr));
  }
  int64_t n = NumElements(shape);
  size_t data_start = header_start + header_len;
  if (bytes.size() - data_start < static_cast<size_t>(n) * source->bytes) {
    ThrowValueError(fmt::format("`{}` is truncated: expected {} elements", path, n));
  }
  const char* data = bytes.data() + data_start;
  // Fortran order stores the transpose's row-major layout: read reversed, transpose back.
  Shape stored = shape;
  if (fortran) std::reverse(stored.begin(), stored.end());
  Array out = Array::Zeros(source->dtype, stored);
  if (source->bytes == ItemSize(source->dtype)) {
    std::memcpy(out.raw(), data, static_cast<size_t>(n) * source->bytes);
  } else {
    // 64-bit data narrowed to 32 bits, as JAX does without x64.
    std::vector<double> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const char* p = data + i * 8;
      if (kind == "f8") {
        double v;
        std::memcpy(&v, p, 8);
        values[i] = v;
      } else if (kind == "i8") {
        int64_t v;
        std::memcpy(&v, p, 8);
        values[i] = static_cast<double>(static_cast<int32_t>(v));
      } else {
        uint64_t v;
        std::memcpy(&v, p, 8);
        values[i] = static_cast<double>(static_cast<uint32_t>(v));
      }
    }
    out = Array::FromDoubles(source->dtype, stored, values);
  }
  if (fortran && out.rank() > 1) out = Transpose(out).Contiguous();
  return out;
}

}  // namespace pz::array
