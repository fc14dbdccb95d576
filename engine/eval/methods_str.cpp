// Methods of str: splitting, joining, stripping, searching, case and padding, as CPython 3.11.
// Strings are UTF-8; positions and widths count code points. Case mapping and the is*()
// predicates handle ASCII (other characters are left unchanged / count as not matching).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "eval/builtin_support.h"
#include "eval/bytes.h"
#include "eval/format.h"
#include "eval/interpreter.h"

namespace pz::eval {

namespace {

const std::string& Text(const Value& self) { return self.as<StrObject>()->value; }

// Python's str.isspace() on ASCII: \t \n \v \f \r, space, and \x1c-\x1f.
bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f); }

std::optional<Value> Arg(const CallArgs& args, size_t i) {
  if (i < args.positional.size()) return args.positional[i];
  return std::nullopt;
}

// ---- Splitting and joining ------------------------------------------------------------------

// The `sep` argument of split/rsplit: nullopt for whitespace splitting.
std::optional<std::string> SplitSeparator(Interpreter& interp, const std::optional<Value>& sep) {
  if (!sep || sep->is_none()) return std::nullopt;
  const std::string& s = ToStr(interp, *sep, "must be str or None, not %s");
  if (s.empty()) interp.Raise(interp.types().value_error, "empty separator");
  return s;
}

Value Split(Interpreter& interp, const Value& self, CallArgs& args, bool from_right) {
  auto bound = BindArgs(interp, from_right ? "rsplit" : "split", args, {"sep=", "maxsplit="});
  std::optional<std::string> sep = SplitSeparator(interp, bound[0]);
  int64_t maxsplit = bound[1] ? ToIndex(interp, *bound[1]) : -1;
  if (maxsplit < 0) maxsplit = INT64_MAX;
  std::string_view s = Text(self);
  std::vector<std::string_view> parts;
  if (!sep) {
    // Mirror the string for rsplit so one loop serves both directions.
    std::string reversed;
    if (from_right) {
      reversed.assign(s.rbegin(), s.rend());
      s = reversed;
    }
    std::vector<std::string> pieces;
    size_t i = 0, n = s.size();
    while (maxsplit-- > 0) {
      while (i < n && IsSpace(s[i])) ++i;
      if (i == n) break;
      size_t j = i;
      while (i < n && !IsSpace(s[i])) ++i;
      pieces.emplace_back(s.substr(j, i - j));
    }
    while (i < n && IsSpace(s[i])) ++i;
    if (i < n) pieces.emplace_back(s.substr(i));
    std::vector<Value> out;
    for (std::string& piece : pieces) {
      if (from_right) std::reverse(piece.begin(), piece.end());
      out.push_back(MakeStr(std::move(piece)));
    }
    if (from_right) std::reverse(out.begin(), out.end());
    return NewList(interp, std::move(out));
  }
  if (!from_right) {
    size_t start = 0;
    while (maxsplit-- > 0) {
      size_t at = s.find(*sep, start);
      if (at == std::string_view::npos) break;
      parts.push_back(s.substr(start, at - start));
      start = at + sep->size();
    }
    parts.push_back(s.substr(start));
  } else {
    size_t end = s.size();
    while (maxsplit-- > 0 && end >= sep->size()) {
      size_t at = s.rfind(*sep, end - sep->size());
      if (at == std::string_view::npos) break;
      parts.push_back(s.substr(at + sep->size(), end - at - sep->size()));
      end = at;
    }
    parts.push_back(s.substr(0, end));
    std::reverse(parts.begin(), parts.end());
  }
  std::vector<Value> out;
  for (std::string_view part : parts) out.push_back(MakeStr(std::string(part)));
  return NewList(interp, std::move(out));
}

Value SplitLines(Interpreter& interp, const Value& self, CallArgs& args) {
  auto bound = BindArgs(interp, "splitlines", args, {"keepends="});
  bool keepends = bound[0] && ToIndex(interp, *bound[0]) != 0;
  const std::string& s = Text(self);
  std::vector<Value> out;
  size_t start = 0, i = 0;
  while (i < s.size()) {
    size_t eol = 0;  // length of the line break at i
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\r') {
      eol = (i + 1 < s.size() && s[i + 1] == '\n') ? 2 : 1;
    } else if (c == '\n' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1e)) {
      eol = 1;
    } else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x85) {
      eol = 2;  // U+0085
    } else if (c == 0xE2 && s.compare(i, 2, "\xE2\x80") == 0 && i + 2 < s.size() &&
               (s[i + 2] == '\xA8' || s[i + 2] == '\xA9')) {
      eol = 3;  // U+2028, U+2029
    }
    if (eol == 0) {
      ++i;
      continue;
    }
    out.push_back(MakeStr(s.substr(start, i - start + (keepends ? eol : 0))));
    i += eol;
    start = i;
  }
  if (start < s.size()) out.push_back(MakeStr(s.substr(start)));
  return NewList(interp, std::move(out));
}

Value Join(Interpreter& interp, const Value& self, CallArgs& args) {
  const Value& iterable = OneArg(interp, "str.join", args);
  if (!interp.TryGetIter(iterable)) {
    interp.Raise(interp.types().type_error, "can only join an iterable");
  }
  std::vector<Value> items = interp.ToVector(iterable);
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    auto* str = items[i].as<StrObject>();
    if (str == nullptr) {
      interp.Raise(interp.types().type_error,
                   fmt::format("sequence item {}: expected str instance, {} found", i,
                               interp.TypeName(items[i])));
    }
    if (i > 0) out += Text(self);
    out += str->value;
  }
  return MakeStr(std::move(out));
}

Value Partition(Interpreter& interp, const Value& self, CallArgs& args, bool from_right) {
  const std::string& sep =
      ToStr(interp, OneArg(interp, from_right ? "str.rpartition" : "str.partition", args),
            "must be str, not %s");
  if (sep.empty()) interp.Raise(interp.types().value_error, "empty separator");
  const std::string& s = Text(self);
  size_t at = from_right ? s.rfind(sep) : s.find(sep);
  if (at == std::string::npos) {
    return from_right ? MakeTuple({MakeStr(""), MakeStr(""), self})
                      : MakeTuple({self, MakeStr(""), MakeStr("")});
  }
  return MakeTuple({MakeStr(s.substr(0, at)), MakeStr(sep), MakeStr(s.substr(at + sep.size()))});
}

// ---- Stripping and replacing ----------------------------------------------------------------

Value Strip(Interpreter& interp, const Value& self, CallArgs& args, std::string_view name,
            bool left, bool right) {
  CheckArgCount(interp, name, args, 0, 1);
  std::optional<Value> chars = Arg(args, 0);
  std::u32string s = DecodeUtf8(Text(self));
  std::u32string set;
  bool whitespace = !chars || chars->is_none();
  if (!whitespace)
    set = DecodeUtf8(
        ToStr(interp, *chars,
              fmt::format("{} arg must be None or str", name.substr(name.rfind('.') + 1))));
  auto strip = [&](char32_t c) {
    return whitespace ? (c < 128 && IsSpace(static_cast<char>(c)))
                      : set.find(c) != std::u32string::npos;
  };
  size_t begin = 0, end = s.size();
  while (left && begin < end && strip(s[begin])) ++begin;
  while (right && end > begin && strip(s[end - 1])) --end;
  return MakeStr(EncodeUtf8(std::u32string_view(s).substr(begin, end - begin)));
}

Value Replace(Interpreter& interp, const Value& self, CallArgs& args) {
  CheckArgCount(interp, "str.replace", args, 2, 3);
  const std::string& old =
      ToStr(interp, args.positional[0], "replace() argument 1 must be str, not %s");
  const std::string& replacement =
      ToStr(interp, args.positional[1], "replace() argument 2 must be str, not %s");
  int64_t count = args.positional.size() > 2 ? ToIndex(interp, args.positional[2]) : -1;
  if (count < 0) count = INT64_MAX;
  const std::string& s = Text(self);
  std::string out;
  if (old.empty()) {
    std::vector<size_t> offsets = Utf8Offsets(s);
    for (size_t i = 0; i + 1 < offsets.size(); ++i) {
      if (count-- > 0) out += replacement;
      out.append(s, offsets[i], offsets[i + 1] - offsets[i]);
    }
    if (count > 0) out += replacement;
    return MakeStr(std::move(out));
  }
  size_t start = 0;
  while (count-- > 0) {
    size_t at = s.find(old, start);
    if (at == std::string::npos) break;
    out.append(s, start, at - start);
    out += replacement;
    start = at + old.size();
  }
  out.append(s, start);
  return MakeStr(std::move(out));
}

// ---- Searching ------------------------------------------------------------------------------

// str search bounds in code points, adjusted as CPython's ADJUST_INDICES (start is not capped).
struct Window {
  std::vector<size_t> offsets;  // byte offset of each code point, then the size
  int64_t start, end;
  int64_t length() const { return static_cast<int64_t>(offsets.size()) - 1; }
  size_t Byte(int64_t i) const { return offsets[static_cast<size_t>(i)]; }
  int64_t CodePoint(size_t byte) const {
    return std::lower_bound(offsets.begin(), offsets.end(), byte) - offsets.begin();
  }
};

// The argument check of find/index/count/startswith/...: (sub[, start[, end]]) with the messages
// of CPython's old-style argument parsing.
void CheckSearchArgs(Interpreter& interp, std::string_view name, const CallArgs& args) {
  CheckNoKeywords(interp, fmt::format("str.{}", name), args);
  size_t given = args.positional.size();
  if (given == 0 || given > 3) {
    interp.Raise(interp.types().type_error,
                 fmt::format("{}() takes at {} ({} given)", name,
                             given == 0 ? "least 1 argument" : "most 3 arguments", given));
  }
}

Window MakeWindow(Interpreter& interp, const std::string& s, const CallArgs& args, size_t first) {
  Window w{.offsets = Utf8Offsets(s)};
  int64_t n = w.length();
  auto index = [&](size_t i, int64_t fallback) {
    std::optional<Value> v = Arg(args, i);
    if (!v || v->is_none()) return fallback;
    if (!v->is_integral() && !v->is(ObjectKind::kExtension)) {
      interp.Raise(interp.types().type_error,
                   "slice indices must be integers or None or have an __index__ method");
    }
    return ToIndex(interp, *v);
  };
  w.start = index(first, 0);
  w.end = index(first + 1, n);
  if (w.end > n) w.end = n;
  if (w.end < 0) w.end = std::max<int64_t>(w.end + n, 0);
  if (w.start < 0) w.start = std::max<int64_t>(w.start + n, 0);
  return w;
}

// find/rfind/index/rindex: code point index of `sub` in the window, or -1.
int64_t FindIn(Interpreter& interp, const Value& self, const CallArgs& args, std::string_view name,
               bool from_right) {
  CheckSearchArgs(interp, name, args);
  const std::string& sub = ToStr(interp, args.positional[0], "must be str, not %s");
  const std::string& s = Text(self);
  Window w = MakeWindow(interp, s, args, 1);
  if (w.end - w.start < static_cast<int64_t>(Utf8Length(sub))) return -1;
  std::string_view view = std::string_view(s).substr(0, w.Byte(w.end));
  size_t from = w.Byte(w.start);
  size_t at;
  if (from_right) {
    at = view.rfind(sub);
    if (at != std::string_view::npos && at < from) at = std::string_view::npos;
  } else {
    at = view.find(sub, from);
  }
  return at == std::string_view::npos ? -1 : w.CodePoint(at);
}

Value Count(Interpreter& interp, const Value& self, CallArgs& args) {
  CheckSearchArgs(interp, "count", args);
  const std::string& sub = ToStr(interp, args.positional[0], "must be str, not %s");
  const std::string& s = Text(self);
  Window w = MakeWindow(interp, s, args, 1);
  if (w.end - w.start < static_cast<int64_t>(Utf8Length(sub))) return Value::Int(0);
  if (sub.empty()) return Value::Int(w.end - w.start + 1);
  std::string_view view = std::string_view(s).substr(0, w.Byte(w.end));
  int64_t count = 0;
  for (size_t at = view.find(sub, w.Byte(w.start)); at != std::string_view::npos;
       at = view.find(sub, at + sub.size())) {
    ++count;
  }
  return Value::Int(count);
}

Value StartsEnds(Interpreter& interp, const Value& self, CallArgs& args, bool ends) {
  std::string_view name = ends ? "endswith" : "startswith";
  CheckSearchArgs(interp, name, args);
  const std::string& s = Text(self);
  Window w = MakeWindow(interp, s, args, 1);
  std::vector<Value> candidates;
  if (auto* tuple = args.positional[0].as<TupleObject>()) {
    candidates = tuple->items;
  } else if (args.positional[0].is(ObjectKind::kStr)) {
    candidates.push_back(args.positional[0]);
  } else {
    interp.Raise(interp.types().type_error,
                 fmt::format("{} first arg must be str or a tuple of str, not {}", name,
                             interp.TypeName(args.positional[0])));
  }
  for (const Value& candidate : candidates) {
    const std::string& affix =
        ToStr(interp, candidate, fmt::format("tuple for {} must only contain str, not %s", name));
    if (w.start > w.length() || w.end - w.start < static_cast<int64_t>(Utf8Length(affix))) {
      continue;
    }
    std::string_view window =
        std::string_view(s).substr(w.Byte(w.start), w.Byte(w.end) - w.Byte(w.start));
    if (ends ? window.ends_with(affix) : window.starts_with(affix)) return Value::Bool(true);
  }
  return Value::Bool(false);
}

// ---- Case and classification ----------------------------------------------------------------

template <typename F>
Value MapChars(Interpreter& interp, const Value& self, CallArgs& args, std::string_view name, F f) {
  NoArgs(interp, name, args);
  std::string out = Text(self);
  for (char& c : out) c = f(c);
  return MakeStr(std::move(out));
}

char Upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }
char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
bool IsUpperChar(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLowerChar(char c) { return c >= 'a' && c <= 'z'; }

Value Title(Interpreter& interp, const Value& self, CallArgs& args, bool only_first) {
  NoArgs(interp, only_first ? "str.capitalize" : "str.title", args);
  std::string out = Text(self);
  bool previous_cased = false;
  for (size_t i = 0; i < out.size(); ++i) {
    char c = out[i];
    bool cased = IsUpperChar(c) || IsLowerChar(c);
    bool first = only_first ? i == 0 : !previous_cased;
    out[i] = first ? Upper(c) : Lower(c);
    previous_cased = cased;
  }
  return MakeStr(std::move(out));
}

// is*() predicates: true when the string is non-empty and every character satisfies `pred`.
Value Predicate(Interpreter& interp, const Value& self, CallArgs& args, std::string_view name,
                bool (*pred)(char)) {
  NoArgs(interp, name, args);
  const std::string& s = Text(self);
  return Value::Bool(!s.empty() && std::all_of(s.begin(), s.end(), pred));
}

// isupper/islower: at least one cased character and none of the other case.
Value CasePredicate(Interpreter& interp, const Value& self, CallArgs& args, bool upper) {
  NoArgs(interp, upper ? "str.isupper" : "str.islower", args);
  bool cased = false;
  for (char c : Text(self)) {
    if (upper ? IsLowerChar(c) : IsUpperChar(c)) return Value::Bool(false);
    cased = cased || (upper ? IsUpperChar(c) : IsLowerChar(c));
  }
  return Value::Bool(cased);
}

// ---- Padding --------------------------------------------------------------------------------

// ljust (align < 0), center (0), rjust (> 0).
Value Pad(Interpreter& interp, const Value& self, CallArgs& args, std::string_view name,
          int align) {
  CheckArgCount(interp, name, args, 1, 2);
  int64_t width = ToIndex(interp, args.positional[0]);
  std::string fill = " ";
  if (args.positional.size() > 1) {
    fill =
        ToStr(interp, args.positional[1], "The fill character must be a unicode character, not %s");
    if (Utf8Length(fill) != 1) {
      interp.Raise(interp.types().type_error,
                   "The fill character must be exactly one character long");
    }
  }
  const std::string& s = Text(self);
  int64_t length = static_cast<int64_t>(Utf8Length(s));
  if (width <= length) return self;
  CheckStringLength(interp, width);
  int64_t margin = width - length;
  int64_t left = align < 0 ? 0 : align > 0 ? margin : margin / 2 + (margin & width & 1);
  std::string out;
  for (int64_t i = 0; i < left; ++i) out += fill;
  out += s;
  for (int64_t i = left; i < margin; ++i) out += fill;
  return MakeStr(std::move(out));
}

Value ZFill(Interpreter& interp, const Value& self, CallArgs& args) {
  int64_t width = ToIndex(interp, OneArg(interp, "str.zfill", args));
  const std::string& s = Text(self);
  int64_t length = static_cast<int64_t>(Utf8Length(s));
  if (width <= length) return self;
  CheckStringLength(interp, width);
  size_t sign = !s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0;
  return MakeStr(s.substr(0, sign) + std::string(static_cast<size_t>(width - length), '0') +
                 s.substr(sign));
}

Value Affix(Interpreter& interp, const Value& self, CallArgs& args, bool suffix) {
  const std::string& affix = ToStr(
      interp, OneArg(interp, suffix ? "str.removesuffix" : "str.removeprefix", args),
      fmt::format("{}() argument must be str, not %s", suffix ? "removesuffix" : "removeprefix"));
  const std::string& s = Text(self);
  if (suffix && !affix.empty() && s.ends_with(affix)) {
    return MakeStr(s.substr(0, s.size() - affix.size()));
  }
  if (!suffix && s.starts_with(affix)) return MakeStr(s.substr(affix.size()));
  return self;
}

bool IsDigitChar(char c) { return c >= '0' && c <= '9'; }
bool IsAlphaChar(char c) { return IsUpperChar(c) || IsLowerChar(c); }
bool IsAlnumChar(char c) { return IsAlphaChar(c) || IsDigitChar(c); }

const MethodEntry kStrMethods[] = {
    {"split", [](Interpreter& i, const Value& s, CallArgs& a) { return Split(i, s, a, false); }},
    {"rsplit", [](Interpreter& i, const Value& s, CallArgs& a) { return Split(i, s, a, true); }},
    {"splitlines", SplitLines},
    {"join", Join},
    {"partition",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Partition(i, s, a, false); }},
    {"rpartition",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Partition(i, s, a, true); }},
    {"strip", [](Interpreter& i, const Value& s,
                 CallArgs& a) { return Strip(i, s, a, "str.strip", true, true); }},
    {"lstrip", [](Interpreter& i, const Value& s,
                  CallArgs& a) { return Strip(i, s, a, "str.lstrip", true, false); }},
    {"rstrip", [](Interpreter& i, const Value& s,
                  CallArgs& a) { return Strip(i, s, a, "str.rstrip", false, true); }},
    {"replace", Replace},
    {"find", [](Interpreter& i, const Value& s,
                CallArgs& a) { return Value::Int(FindIn(i, s, a, "find", false)); }},
    {"rfind", [](Interpreter& i, const Value& s,
                 CallArgs& a) { return Value::Int(FindIn(i, s, a, "rfind", true)); }},
    {"index",
     [](Interpreter& i, const Value& s, CallArgs& a) {
       int64_t at = FindIn(i, s, a, "index", false);
       if (at < 0) i.Raise(i.types().value_error, "substring not found");
       return Value::Int(at);
     }},
    {"rindex",
     [](Interpreter& i, const Value& s, CallArgs& a) {
       int64_t at = FindIn(i, s, a, "rindex", true);
       if (at < 0) i.Raise(i.types().value_error, "substring not found");
       return Value::Int(at);
     }},
    {"count", Count},
    {"startswith",
     [](Interpreter& i, const Value& s, CallArgs& a) { return StartsEnds(i, s, a, false); }},
    {"endswith",
     [](Interpreter& i, const Value& s, CallArgs& a) { return StartsEnds(i, s, a, true); }},
    {"upper", [](Interpreter& i, const Value& s,
                 CallArgs& a) { return MapChars(i, s, a, "str.upper", Upper); }},
    {"lower", [](Interpreter& i, const Value& s,
                 CallArgs& a) { return MapChars(i, s, a, "str.lower", Lower); }},
    {"casefold", [](Interpreter& i, const Value& s,
                    CallArgs& a) { return MapChars(i, s, a, "str.casefold", Lower); }},
    {"swapcase",
     [](Interpreter& i, const Value& s, CallArgs& a) {
       return MapChars(i, s, a, "str.swapcase",
                       [](char c) { return IsUpperChar(c) ? Lower(c) : Upper(c); });
     }},
    {"title", [](Interpreter& i, const Value& s, CallArgs& a) { return Title(i, s, a, false); }},
    {"capitalize",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Title(i, s, a, true); }},
    {"isdigit", [](Interpreter& i, const Value& s,
                   CallArgs& a) { return Predicate(i, s, a, "str.isdigit", IsDigitChar); }},
    {"isdecimal", [](Interpreter& i, const Value& s,
                     CallArgs& a) { return Predicate(i, s, a, "str.isdecimal", IsDigitChar); }},
    {"isnumeric", [](Interpreter& i, const Value& s,
                     CallArgs& a) { return Predicate(i, s, a, "str.isnumeric", IsDigitChar); }},
    {"isalpha", [](Interpreter& i, const Value& s,
                   CallArgs& a) { return Predicate(i, s, a, "str.isalpha", IsAlphaChar); }},
    {"isalnum", [](Interpreter& i, const Value& s,
                   CallArgs& a) { return Predicate(i, s, a, "str.isalnum", IsAlnumChar); }},
    {"isspace", [](Interpreter& i, const Value& s,
                   CallArgs& a) { return Predicate(i, s, a, "str.isspace", IsSpace); }},
    {"isupper",
     [](Interpreter& i, const Value& s, CallArgs& a) { return CasePredicate(i, s, a, true); }},
    {"islower",
     [](Interpreter& i, const Value& s, CallArgs& a) { return CasePredicate(i, s, a, false); }},
    {"ljust",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Pad(i, s, a, "str.ljust", -1); }},
    {"rjust",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Pad(i, s, a, "str.rjust", 1); }},
    {"center",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Pad(i, s, a, "str.center", 0); }},
    {"zfill", ZFill},
    {"removeprefix",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Affix(i, s, a, false); }},
    {"removesuffix",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Affix(i, s, a, true); }},
    {"format",
     [](Interpreter& i, const Value& s, CallArgs& a) { return StrFormatMethod(i, Text(s), a); }},
    {"encode", StrEncodeMethod},
};

}  // namespace

std::optional<Value> GetStrMethod(Interpreter& interp, const Value& self, std::string_view name) {
  return FindMethod(interp, self, name, kStrMethods);
}

}  // namespace pz::eval
