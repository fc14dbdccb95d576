// jnp.einsum for one and two operands, lowered onto DotGeneral. Parsing yields one label string
// per operand (`...` expands to digit labels, right-aligned so they broadcast); a label repeated
// within an operand becomes a diagonal view (summed strides), size-1 axes stretch to the other
// operand's size, labels private to one operand and absent from the output are summed first,
// shared labels become batch (kept) or contracting (summed) axes, and a final transpose puts the
// labels in output order.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "array/linalg.h"

namespace pz::array {
namespace {

struct Labelled {
  Array array;
  std::string labels;  // one distinct label per axis of `array`
};

struct Parsed {
  std::vector<std::string> inputs;
  std::string output;
};

// The internal label of the ellipsis axis `from_right` places before the ellipsis's end; digits
// never collide with user labels (letters only), and right-aligned naming makes them broadcast.
char EllipsisLabel(int from_right) { return static_cast<char>('0' + from_right); }

// Replaces `...` in one term by labels for `rank` axes ("" when rank is 0).
std::string ExpandEllipsis(const std::string& term, int rank) {
  size_t dots = term.find("...");
  if (dots == std::string::npos) return term;
  std::string labels;
  for (int j = rank - 1; j >= 0; --j) labels.push_back(EllipsisLabel(j));
  return term.substr(0, dots) + labels + term.substr(dots + 3);
}

void CheckLabels(const std::string& term, std::string_view subscripts, std::string_view fn_name) {
  std::string rest = term;
  size_t dots = rest.find("...");
  if (dots != std::string::npos) rest.erase(dots, 3);
  for (char c : rest) {
    if (!std::isalpha(static_cast<unsigned char>(c))) {
      ThrowValueError(fmt::format("`{}` subscripts '{}' contain an invalid label '{}'; use letters",
                                  fn_name, subscripts, c));
    }
  }
}

Parsed ParseSubscripts(std::string_view subscripts, const std::vector<const Array*>& operands,
                       std::string_view fn_name) {
  std::string text;
  for (char c : subscripts) {
    if (c != ' ') text.push_back(c);
  }
  Parsed parsed;
  size_t arrow = text.find("->");
  std::string lhs = text.substr(0, arrow);
  bool explicit_output = arrow != std::string::npos;
  std::string output_term = explicit_output ? text.substr(arrow + 2) : "";
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    parsed.inputs.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (parsed.inputs.size() != operands.size()) {
    ThrowValueError(fmt::format("`{}` subscripts '{}' name {} operands, but {} were given", fn_name,
                                subscripts, parsed.inputs.size(), operands.size()));
  }
  std::string all_labels;
  int ellipsis_rank = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    std::string& in = parsed.inputs[i];
    CheckLabels(in, subscripts, fn_name);
    bool has_ellipsis = in.find("...") != std::string::npos;
    int letters = static_cast<int>(in.size()) - (has_ellipsis ? 3 : 0);
    int rank = operands[i]->rank();
    if (has_ellipsis ? letters > rank : letters != rank) {
      ThrowValueError(
          fmt::format("`{}` subscripts '{}' give operand {} {} labels, but its shape "
                      "is {}",
                      fn_name, subscripts, i, letters, ShapeToString(operands[i]->shape())));
    }
    if (has_ellipsis) ellipsis_rank = std::max(ellipsis_rank, rank - letters);
    in = ExpandEllipsis(in, rank - letters);
    all_labels += in;
  }
  if (!explicit_output) {
    // numpy's implicit output: the ellipsis axes, then the letters used once, sorted.
    parsed.output = ExpandEllipsis("...", ellipsis_rank);
    std::string once;
    for (char c : all_labels) {
      if (std::isalpha(static_cast<unsigned char>(c)) &&
          std::count(all_labels.begin(), all_labels.end(), c) == 1) {
        once.push_back(c);
      }
    }
    std::sort(once.begin(), once.end());
    parsed.output += once;
    return parsed;
  }
  CheckLabels(output_term, subscripts, fn_name);
  parsed.output = ExpandEllipsis(output_term, ellipsis_rank);
  for (char c : parsed.output) {
    if (all_labels.find(c) == std::string::npos) {
      ThrowValueError(fmt::format("`{}` output label '{}' in '{}' does not occur in any operand",
                                  fn_name, c, subscripts));
    }
    if (std::count(parsed.output.begin(), parsed.output.end(), c) > 1) {
      ThrowValueError(fmt::format("`{}` output label '{}' in '{}' occurs more than once", fn_name,
                                  c, subscripts));
    }
  }
  return parsed;
}

// Folds repeated labels of one operand into a diagonal view.
Labelled TakeDiagonals(const Array& a, const std::string& labels, std::string_view fn_name) {
  Labelled out;
  Shape shape;
  std::vector<int64_t> strides;
  for (size_t i = 0; i < labels.size(); ++i) {
    size_t first = out.labels.find(labels[i]);
    if (first == std::string::npos) {
      out.labels.push_back(labels[i]);
      shape.push_back(a.shape()[i]);
      strides.push_back(a.strides()[i]);
    } else if (shape[first] != a.shape()[i]) {
      ThrowValueError(fmt::format("`{}` label '{}' has sizes {} and {} in one operand of shape {}",
                                  fn_name, labels[i], shape[first], a.shape()[i],
                                  ShapeToString(a.shape())));
    } else {
      strides[first] += a.strides()[i];
    }
  }
  out.array = a.View(std::move(shape), std::move(strides), a.offset());
  return out;
}

// Stretches a size-1 axis to the size of the same label in the other operand (stride 0), as
// numpy broadcasting does; other size mismatches are errors.
void BroadcastSharedLabels(Labelled& x, Labelled& y, const Shape& a_shape, const Shape& b_shape,
                           std::string_view fn_name) {
  Shape xs = x.array.shape(), ys = y.array.shape();
  std::vector<int64_t> xt = x.array.strides(), yt = y.array.strides();
  for (size_t i = 0; i < x.labels.size(); ++i) {
    size_t j = y.labels.find(x.labels[i]);
    if (j == std::string::npos || xs[i] == ys[j]) continue;
    if (xs[i] == 1) {
      xs[i] = ys[j];
      xt[i] = 0;
    } else if (ys[j] == 1) {
      ys[j] = xs[i];
      yt[j] = 0;
    } else if (std::isalpha(static_cast<unsigned char>(x.labels[i]))) {
      ThrowValueError(fmt::format(
          "`{}` label '{}' has size {} in operand 0 of shape {} but {} in operand 1 of shape {}",
          fn_name, x.labels[i], xs[i], ShapeToString(a_shape), ys[j], ShapeToString(b_shape)));
    } else {
      ThrowValueError(fmt::format("`{}` cannot broadcast the `...` axes of shapes {} and {}",
                                  fn_name, ShapeToString(a_shape), ShapeToString(b_shape)));
    }
  }
  x.array = x.array.View(std::move(xs), std::move(xt), x.array.offset());
  y.array = y.array.View(std::move(ys), std::move(yt), y.array.offset());
}

// Sums the axes whose labels are not in `keep` (as a contraction with ones, so the dtype and
// accumulation rules are DotGeneral's).
Labelled SumOut(const Labelled& x, const std::string& keep, std::optional<DType> pref,
                std::string_view fn_name) {
  DotDimensionNumbers dims;
  Shape ones_shape;
  Labelled out;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (keep.find(x.labels[i]) == std::string::npos) {
      dims.lhs_contracting.push_back(static_cast<int>(i));
      dims.rhs_contracting.push_back(static_cast<int>(ones_shape.size()));
      ones_shape.push_back(x.array.shape()[i]);
    } else {
      out.labels.push_back(x.labels[i]);
    }
  }
  if (ones_shape.empty() && !pref) return x;
  Array ones = Array::FromDoubles(x.array.dtype(), ones_shape,
                                  std::vector<double>(NumElements(ones_shape), 1.0));
  out.array = DotGeneral(x.array, ones, dims, pref, fn_name);
  return out;
}

// Reorders the axes of `x` to the label order of `output` (a contiguous result).
Array ToOutputOrder(const Labelled& x, const std::string& output) {
  Shape shape;
  std::vector<int64_t> strides;
  for (char c : output) {
    size_t axis = x.labels.find(c);
    shape.push_back(x.array.shape()[axis]);
    strides.push_back(x.array.strides()[axis]);
  }
  return x.array.View(std::move(shape), std::move(strides), x.array.offset()).Contiguous();
}

}  // namespace

Array Einsum(std::string_view subscripts, const Array& a, const Array& b,
             std::optional<DType> preferred_element_type, std::string_view fn_name) {
  Parsed parsed = ParseSubscripts(subscripts, {&a, &b}, fn_name);
  Labelled x = TakeDiagonals(a, parsed.inputs[0], fn_name);
  Labelled y = TakeDiagonals(b, parsed.inputs[1], fn_name);
  BroadcastSharedLabels(x, y, a.shape(), b.shape(), fn_name);
  x = SumOut(x, parsed.output + y.labels, std::nullopt, fn_name);
  y = SumOut(y, parsed.output + x.labels, std::nullopt, fn_name);

  DotDimensionNumbers dims;
  Labelled result;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    char c = x.labels[i];
    size_t j = y.labels.find(c);
    if (j == std::string::npos) continue;
    bool keep = parsed.output.find(c) != std::string::npos;
    (keep ? dims.lhs_batch : dims.lhs_contracting).push_back(static_cast<int>(i));
    (keep ? dims.rhs_batch : dims.rhs_contracting).push_back(static_cast<int>(j));
    if (keep) result.labels.push_back(c);
  }
  for (char c : x.labels) {
    if (y.labels.find(c) == std::string::npos) result.labels.push_back(c);
  }
  for (char c : y.labels) {
    if (x.labels.find(c) == std::string::npos) result.labels.push_back(c);
  }
  result.array = DotGeneral(x.array, y.array, dims, preferred_element_type, fn_name);
  return ToOutputOrder(result, parsed.output);
}

Array Einsum(std::string_view subscripts, const Array& a,
             std::optional<DType> preferred_element_type, std::string_view fn_name) {
  Parsed parsed = ParseSubscripts(subscripts, {&a}, fn_name);
  Labelled x = TakeDiagonals(a, parsed.inputs[0], fn_name);
  x = SumOut(x, parsed.output, preferred_element_type, fn_name);
  return ToOutputOrder(x, parsed.output);
}

}  // namespace pz::array
