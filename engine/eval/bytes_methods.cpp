// Methods of bytes, as CPython 3.11: hex and decode, searching (find, count, startswith, ...),
// splitting and joining, stripping, replacing, ASCII case mapping and classification. Positions
// count bytes; a search argument is bytes or an int in range(0, 256).
#include <fmt/format.h>

#include <algorithm>

#include "eval/builtin_support.h"
#include "eval/bytes.h"

namespace pz::eval {
namespace {

const std::string& Bytes(const Value& self) { return self.as<BytesObject>()->value; }

// ASCII whitespace as bytes.isspace() and bytes.split() see it: space, \t \n \v \f \r.
bool IsAsciiSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAlnum(char c) { return IsAlpha(c) || IsDigit(c); }

// ---- Conversions ------------------------------------------------------------------------------

Value Hex(Interpreter& interp, const Value& self, CallArgs& args) {
  auto bound = BindArgs(interp, "hex", args, {"sep=", "bytes_per_sep="});
  const std::string& s = Bytes(self);
  std::string sep;
  if (bound[0]) {
    if (interp.Len(*bound[0]) != 1)
      interp.Raise(interp.types().value_error, "sep must be length 1.");
    if (auto* str = bound[0]->as<StrObject>()) {
      sep = str->value;
    } else if (auto* bytes = bound[0]->as<BytesObject>()) {
      sep = bytes->value;
    } else {
      interp.Raise(interp.types().type_error, "sep must be str or bytes.");
    }
    if (static_cast<unsigned char>(sep[0]) >= 0x80) {
      interp.Raise(interp.types().value_error, "sep must be ASCII.");
    }
  }
  int64_t per_sep = bound[1] ? ToIndex(interp, *bound[1]) : 1;
  int64_t group = per_sep < 0 ? -per_sep : per_sep;
  int64_t n = static_cast<int64_t>(s.size());
  // A positive bytes_per_sep counts the groups from the right, a negative one from the left.
  int64_t first = per_sep > 0 && group > 0 ? (n % group == 0 ? group : n % group) : group;
  std::string out;
  for (int64_t i = 0; i < n; ++i) {
    if (!sep.empty() && group > 0 && i > 0 && (i - first) % group == 0) out += sep;
    out += fmt::format("{:02x}", static_cast<unsigned char>(s[i]));
  }
  return MakeStr(std::move(out));
}

Value Decode(Interpreter& interp, const Value& self, CallArgs& args) {
  auto bound = BindArgs(interp, "decode", args, {"encoding=", "errors="});
  std::string encoding = "utf-8";
  std::string errors = "strict";
  if (bound[0]) {
    encoding = ToStr(interp, *bound[0], "decode() argument 'encoding' must be str, not %s");
  }
  if (bound[1]) errors = ToStr(interp, *bound[1], "decode() argument 'errors' must be str, not %s");
  return MakeStr(DecodeBytes(interp, Bytes(self), encoding, errors));
}

// ---- Searching --------------------------------------------------------------------------------

// The (sub[, start[, end]]) arguments of find, count, startswith, ...: the checks and messages of
// CPython's argument parsing, and the window [start, end) adjusted as its ADJUST_INDICES.
struct Window {
  int64_t start, end;
};

Window SearchWindow(Interpreter& interp, std::string_view name, const std::string& s,
                    const CallArgs& args) {
  CheckNoKeywords(interp, fmt::format("bytes.{}", name), args);
  size_t given = args.positional.size();
  if (given == 0 || given > 3) {
    interp.Raise(interp.types().type_error,
                 fmt::format("{}() takes at {} ({} given)", name,
                             given == 0 ? "least 1 argument" : "most 3 arguments", given));
  }
  int64_t n = static_cast<int64_t>(s.size());
  auto index = [&](size_t i, int64_t fallback) {
    if (i >= given || args.positional[i].is_none()) return fallback;
    const Value& v = args.positional[i];
    if (!v.is_integral() && !v.is(ObjectKind::kExtension)) {
      interp.Raise(interp.types().type_error,
                   "slice indices must be integers or None or have an __index__ method");
    }
    return ToIndex(interp, v);
  };
  Window w{index(1, 0), index(2, n)};
  if (w.end > n) w.end = n;
  if (w.end < 0) w.end = std::max<int64_t>(w.end + n, 0);
  if (w.start < 0) w.start = std::max<int64_t>(w.start + n, 0);
  return w;
}

// What find/count/index search for: bytes, or one byte given as an int.
std::string Needle(Interpreter& interp, const Value& sub) {
  if (sub.is_integral()) {
    if (sub.integral() < 0 || sub.integral() > 255) {
      interp.Raise(interp.types().value_error, "byte must be in range(0, 256)");
    }
    return std::string(1, static_cast<char>(sub.integral()));
  }
  if (auto* bytes = sub.as<BytesObject>()) return bytes->value;
  interp.Raise(interp.types().type_error,
               fmt::format("argument should be integer or bytes-like object, not '{}'",
                           interp.TypeName(sub)));
}

// find/rfind/index/rindex: the position of the needle in the window, or -1.
int64_t FindIn(Interpreter& interp, const Value& self, const CallArgs& args, std::string_view name,
               bool from_right) {
  const std::string& s = Bytes(self);
  Window w = SearchWindow(interp, name, s, args);
  std::string sub = Needle(interp, args.positional[0]);
  if (w.end - w.start < static_cast<int64_t>(sub.size())) return -1;
  std::string_view window = std::string_view(s).substr(w.start, w.end - w.start);
  size_t at = from_right ? window.rfind(sub) : window.find(sub);
  return at == std::string_view::npos ? -1 : w.start + static_cast<int64_t>(at);
}

Value Find(Interpreter& interp, const Value& self, CallArgs& args, std::string_view name,
           bool from_right) {
  int64_t at = FindIn(interp, self, args, name, from_right);
  if (at < 0 && name.ends_with("index")) {
    interp.Raise(interp.types().value_error, "subsection not found");
  }
  return Value::Int(at);
}

Value Count(Interpreter& interp, const Value& self, CallArgs& args) {
  const std::string& s = Bytes(self);
  Window w = SearchWindow(interp, "count", s, args);
  std::string sub = Needle(interp, args.positional[0]);
  if (w.end - w.start < static_cast<int64_t>(sub.size())) return Value::Int(0);
  if (sub.empty()) return Value::Int(w.end - w.start + 1);
  std::string_view window = std::string_view(s).substr(w.start, w.end - w.start);
  int64_t count = 0;
  for (size_t at = window.find(sub); at != std::string_view::npos;
       at = window.find(sub, at + sub.size())) {
    ++count;
  }
  return Value::Int(count);
}

Value StartsEnds(Interpreter& interp, const Value& self, CallArgs& args, bool ends) {
  std::string_view name = ends ? "endswith" : "startswith";
  const std::string& s = Bytes(self);
  Window w = SearchWindow(interp, name, s, args);
  std::vector<Value> candidates;
  if (auto* tuple = args.positional[0].as<TupleObject>()) {
    candidates = tuple->items;
  } else if (args.positional[0].as<BytesObject>()) {
    candidates.push_back(args.positional[0]);
  } else {
    interp.Raise(interp.types().type_error,
                 fmt::format("{} first arg must be bytes or a tuple of bytes, not {}", name,
                             interp.TypeName(args.positional[0])));
  }
  for (const Value& candidate : candidates) {
    const std::string& affix = BytesLike(interp, candidate);
    if (w.start > static_cast<int64_t>(s.size()) ||
        w.end - w.start < static_cast<int64_t>(affix.size())) {
      continue;
    }
    std::string_view window = std::string_view(s).substr(w.start, w.end - w.start);
    if (ends ? window.ends_with(affix) : window.starts_with(affix)) return Value::Bool(true);
  }
  return Value::Bool(false);
}

// ---- Splitting, joining, stripping, replacing -------------------------------------------------

Value BytesList(Interpreter& interp, std::vector<std::string> parts) {
  std::vector<Value> items;
  items.reserve(parts.size());
  for (std::string& part : parts) items.push_back(MakeBytes(std::move(part)));
  return NewList(interp, std::move(items));
}

Value SplitBytes(Interpreter& interp, const Value& self, CallArgs& args, bool from_right) {
  auto bound = BindArgs(interp, from_right ? "rsplit" : "split", args, {"sep=", "maxsplit="});
  int64_t maxsplit = bound[1] ? ToIndex(interp, *bound[1]) : -1;
  if (maxsplit < 0) maxsplit = INT64_MAX;
  std::string s = Bytes(self);
  // rsplit is split of the reversed bytes by the reversed separator, with the parts reversed.
  if (from_right) std::reverse(s.begin(), s.end());
  std::vector<std::string> parts;
  if (!bound[0] || bound[0]->is_none()) {
    size_t i = 0, n = s.size();
    while (maxsplit-- > 0) {
      while (i < n && IsAsciiSpace(s[i])) ++i;
      if (i == n) break;
      size_t j = i;
      while (i < n && !IsAsciiSpace(s[i])) ++i;
      parts.push_back(s.substr(j, i - j));
    }
    while (i < n && IsAsciiSpace(s[i])) ++i;
    if (i < n) parts.push_back(s.substr(i));
  } else {
    std::string sep = BytesLike(interp, *bound[0]);
    if (sep.empty()) interp.Raise(interp.types().value_error, "empty separator");
    if (from_right) std::reverse(sep.begin(), sep.end());
    size_t start = 0;
    while (maxsplit-- > 0) {
      size_t at = s.find(sep, start);
      if (at == std::string::npos) break;
      parts.push_back(s.substr(start, at - start));
      start = at + sep.size();
    }
    parts.push_back(s.substr(start));
  }
  if (from_right) {
    for (std::string& part : parts) std::reverse(part.begin(), part.end());
    std::reverse(parts.begin(), parts.end());
  }
  return BytesList(interp, std::move(parts));
}

Value Join(Interpreter& interp, const Value& self, CallArgs& args) {
  const Value& iterable = OneArg(interp, "bytes.join", args);
  if (!interp.TryGetIter(iterable)) {
    interp.Raise(interp.types().type_error, "can only join an iterable");
  }
  std::vector<Value> items = interp.ToVector(iterable);
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    auto* bytes = items[i].as<BytesObject>();
    if (bytes == nullptr) {
      interp.Raise(interp.types().type_error,
                   fmt::format("sequence item {}: expected a bytes-like object, {} found", i,
                               interp.TypeName(items[i])));
    }
    if (i > 0) out += Bytes(self);
    out += bytes->value;
    CheckStringLength(interp, static_cast<int64_t>(out.size()));
  }
  return MakeBytes(std::move(out));
}

Value Strip(Interpreter& interp, const Value& self, CallArgs& args, std::string_view name,
            bool left, bool right) {
  CheckArgCount(interp, name, args, 0, 1);
  bool whitespace = args.positional.empty() || args.positional[0].is_none();
  std::string chars = whitespace ? "" : BytesLike(interp, args.positional[0]);
  auto strip = [&](char c) {
    return whitespace ? IsAsciiSpace(c) : chars.find(c) != std::string::npos;
  };
  std::string_view s = Bytes(self);
  size_t begin = 0, end = s.size();
  while (left && begin < end && strip(s[begin])) ++begin;
  while (right && end > begin && strip(s[end - 1])) --end;
  return MakeBytes(std::string(s.substr(begin, end - begin)));
}

Value Replace(Interpreter& interp, const Value& self, CallArgs& args) {
  CheckArgCount(interp, "bytes.replace", args, 2, 3);
  const std::string& old = BytesLike(interp, args.positional[0]);
  const std::string& replacement = BytesLike(interp, args.positional[1]);
  int64_t count = args.positional.size() > 2 ? ToIndex(interp, args.positional[2]) : -1;
  if (count < 0) count = INT64_MAX;
  const std::string& s = Bytes(self);
  std::string out;
  if (old.empty()) {
    // An empty pattern matches before every byte and at the end.
    for (char c : s) {
      if (count-- > 0) out += replacement;
      out += c;
    }
    if (count > 0) out += replacement;
  } else {
    size_t start = 0;
    while (count-- > 0) {
      size_t at = s.find(old, start);
      if (at == std::string::npos) break;
      out.append(s, start, at - start);
      out += replacement;
      start = at + old.size();
    }
    out.append(s, start);
  }
  CheckStringLength(interp, static_cast<int64_t>(out.size()));
  return MakeBytes(std::move(out));
}

Value Affix(Interpreter& interp, const Value& self, CallArgs& args, bool suffix) {
  const std::string& affix =
      BytesLike(interp, OneArg(interp, suffix ? "bytes.removesuffix" : "bytes.removeprefix", args));
  const std::string& s = Bytes(self);
  if (suffix && !affix.empty() && s.ends_with(affix)) {
    return MakeBytes(s.substr(0, s.size() - affix.size()));
  }
  if (!suffix && s.starts_with(affix)) return MakeBytes(s.substr(affix.size()));
  return self;
}

// ---- Case and classification (ASCII letters only, as for bytes in CPython) --------------------

Value MapBytes(Interpreter& interp, const Value& self, CallArgs& args, std::string_view name,
               char (*f)(char)) {
  NoArgs(interp, name, args);
  std::string out = Bytes(self);
  for (char& c : out) c = f(c);
  return MakeBytes(std::move(out));
}

char Upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// is*(): true when the bytes are non-empty and every byte satisfies `pred`.
Value Predicate(Interpreter& interp, const Value& self, CallArgs& args, std::string_view name,
                bool (*pred)(char)) {
  NoArgs(interp, name, args);
  const std::string& s = Bytes(self);
  return Value::Bool(!s.empty() && std::all_of(s.begin(), s.end(), pred));
}

using A = CallArgs;
using I = Interpreter;
using V = Value;

const MethodEntry kBytesMethods[] = {
    {"hex", Hex},
    {"decode", Decode},
    {"find", [](I& i, const V& s, A& a) { return Find(i, s, a, "find", false); }},
    {"rfind", [](I& i, const V& s, A& a) { return Find(i, s, a, "rfind", true); }},
    {"index", [](I& i, const V& s, A& a) { return Find(i, s, a, "index", false); }},
    {"rindex", [](I& i, const V& s, A& a) { return Find(i, s, a, "rindex", true); }},
    {"count", Count},
    {"startswith", [](I& i, const V& s, A& a) { return StartsEnds(i, s, a, false); }},
    {"endswith", [](I& i, const V& s, A& a) { return StartsEnds(i, s, a, true); }},
    {"split", [](I& i, const V& s, A& a) { return SplitBytes(i, s, a, false); }},
    {"rsplit", [](I& i, const V& s, A& a) { return SplitBytes(i, s, a, true); }},
    {"join", Join},
    {"strip", [](I& i, const V& s, A& a) { return Strip(i, s, a, "bytes.strip", true, true); }},
    {"lstrip", [](I& i, const V& s, A& a) { return Strip(i, s, a, "bytes.lstrip", true, false); }},
    {"rstrip", [](I& i, const V& s, A& a) { return Strip(i, s, a, "bytes.rstrip", false, true); }},
    {"replace", Replace},
    {"removeprefix", [](I& i, const V& s, A& a) { return Affix(i, s, a, false); }},
    {"removesuffix", [](I& i, const V& s, A& a) { return Affix(i, s, a, true); }},
    {"upper", [](I& i, const V& s, A& a) { return MapBytes(i, s, a, "bytes.upper", Upper); }},
    {"lower", [](I& i, const V& s, A& a) { return MapBytes(i, s, a, "bytes.lower", Lower); }},
    {"isdigit",
     [](I& i, const V& s, A& a) { return Predicate(i, s, a, "bytes.isdigit", IsDigit); }},
    {"isalpha",
     [](I& i, const V& s, A& a) { return Predicate(i, s, a, "bytes.isalpha", IsAlpha); }},
    {"isalnum",
     [](I& i, const V& s, A& a) { return Predicate(i, s, a, "bytes.isalnum", IsAlnum); }},
    {"isspace",
     [](I& i, const V& s, A& a) { return Predicate(i, s, a, "bytes.isspace", IsAsciiSpace); }},
};

}  // namespace

std::optional<Value> GetBytesMethod(Interpreter& interp, const Value& self, std::string_view name) {
  return FindMethod(interp, self, name, kBytesMethods);
}

std::vector<std::string_view> BytesMethodNames() {
  std::vector<std::string_view> names;
  for (const MethodEntry& entry : kBytesMethods) names.push_back(entry.name);
  return names;
}

}  // namespace pz::eval
