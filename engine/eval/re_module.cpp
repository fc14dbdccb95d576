// The `re` module: compile() (with a cache of compiled patterns, as CPython keeps), the module
// functions search/match/fullmatch/sub/subn/split/findall/finditer/escape, the flags, `re.error`,
// and Pattern objects with the same methods taking `pos`/`endpos`. Matching itself is the
// engine's (re_engine.h); Match objects, sub() and split() are in re_match.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "eval/builtin_support.h"
#include "eval/format.h"
#include "eval/re_module.h"

namespace pz::eval {
namespace {

// Matcher steps one search may take (about a second) before it is stopped as a runaway.
constexpr int64_t kMaxRegexSteps = 50'000'000;
// Compiled patterns kept for the module functions, as CPython's re._MAXCACHE.
constexpr size_t kMaxCachedPatterns = 512;

// Per-interpreter state of the module.
struct ReState {
  TypeObject* error = nullptr;
  std::unordered_map<std::string, Value> cache;  // flags + '/' + pattern -> PatternObject
};

ReState& State(Interpreter& interp) { return interp.State<ReState>(); }

// The flags in the order Pattern's repr lists them (CPython's pattern_repr table), and in the
// order RegexFlag's repr does (their definition order in the re module).
constexpr int kTemplate = 1, kDebug = 128;
const std::pair<int, const char*> kFlagNames[] = {
    {kTemplate, "TEMPLATE"},   {re::kIgnoreCase, "IGNORECASE"},
    {re::kLocale, "LOCALE"},   {re::kMultiline, "MULTILINE"},
    {re::kDotAll, "DOTALL"},   {re::kUnicode, "UNICODE"},
    {re::kVerbose, "VERBOSE"}, {kDebug, "DEBUG"},
    {re::kAscii, "ASCII"},
};
const std::pair<int, const char*> kFlagDefinitionOrder[] = {
    {re::kAscii, "ASCII"},     {re::kIgnoreCase, "IGNORECASE"}, {re::kLocale, "LOCALE"},
    {re::kUnicode, "UNICODE"}, {re::kMultiline, "MULTILINE"},   {re::kDotAll, "DOTALL"},
    {re::kVerbose, "VERBOSE"}, {kTemplate, "TEMPLATE"},         {kDebug, "DEBUG"},
};

// `name1|name2|0x...` for the bits of `flags`, with `prefix` before each name; empty for 0.
template <size_t N>
std::string FlagNames(int64_t flags, const std::pair<int, const char*> (&names)[N],
                      std::string_view prefix) {
  std::string out;
  for (const auto& [bit, name] : names) {
    if (flags & bit) {
      out += (out.empty() ? "" : "|") + std::string(prefix) + name;
      flags &= ~static_cast<int64_t>(bit);
    }
  }
  if (flags != 0) out += fmt::format("{}0x{:x}", out.empty() ? "" : "|", flags);
  return out;
}

// re.RegexFlag (an IntFlag): an int that prints as the flags it holds
// (`re.IGNORECASE|re.MULTILINE`); |, & and ^ keep the type, other arithmetic gives ints.
class RegexFlagObject final : public Object {
 public:
  explicit RegexFlagObject(int64_t value) : Object(ObjectKind::kExtension), value(value) {}
  std::string_view type_name() const override { return "RegexFlag"; }
  std::string Repr(Interpreter&) const override {
    return value == 0 ? "re.NOFLAG" : FlagNames(value, kFlagDefinitionOrder, "re.");
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override {
    if (name == "value") return Value::Int(value);
    if (name == "name") {
      return value == 0 ? MakeStr("NOFLAG") : MakeStr(FlagNames(value, kFlagDefinitionOrder, ""));
    }
    if (name == "__index__" || name == "__int__") {
      int64_t v = value;
      return interp.MakeBuiltin(std::string(name),
                                [v](Interpreter&, CallArgs&) { return Value::Int(v); });
    }
    return std::nullopt;
  }
  std::optional<Value> Binary(Interpreter& interp, lang::BinOpKind op, const Value& other,
                              bool reflected) override {
    using lang::BinOpKind;
    auto* flag = other.as<RegexFlagObject>();
    bool bitwise = op == BinOpKind::kBitOr || op == BinOpKind::kBitAnd || op == BinOpKind::kBitXor;
    if (bitwise && (flag != nullptr || other.is_integral())) {
      int64_t b = flag ? flag->value : other.integral();
      int64_t r = op == BinOpKind::kBitOr    ? (value | b)
                  : op == BinOpKind::kBitAnd ? (value & b)
                                             : (value ^ b);
      return Value(std::make_shared<RegexFlagObject>(r));
    }
    Value self = Value::Int(value);
    return reflected ? interp.BinaryOp(op, other, self) : interp.BinaryOp(op, self, other);
  }
  std::optional<Value> Unary(Interpreter& interp, lang::UnaryOpKind op) override {
    if (op != lang::UnaryOpKind::kInvert) return interp.UnaryOp(op, Value::Int(value));
    int64_t all = 0;
    for (const auto& [bit, name] : kFlagNames) all |= bit;
    return Value(std::make_shared<RegexFlagObject>(~value & all));
  }
  std::optional<Value> Compare(Interpreter& interp, lang::CmpOpKind op, const Value& other,
                               bool reflected) override {
    Value self = Value::Int(value);
    return reflected ? interp.Compare(op, other, self) : interp.Compare(op, self, other);
  }
  std::optional<bool> Truthy(Interpreter&) override { return value != 0; }
  std::optional<size_t> Hash(Interpreter& interp) override {
    return interp.Hash(Value::Int(value));
  }
  std::optional<std::string> Format(Interpreter& interp, std::string_view spec) override {
    if (spec.empty()) return std::nullopt;
    return interp.Format(Value::Int(value), spec);
  }

  const int64_t value;
};

// The compiled pattern for `pattern` (a str or a Pattern) and `flags`.
Value GetPattern(Interpreter& interp, const Value& pattern, const std::optional<Value>& flags_arg) {
  int64_t flags = flags_arg ? ToIndex(interp, *flags_arg) : 0;
  if (pattern.as<PatternObject>()) {
    if (flags != 0) {
      interp.Raise(interp.types().value_error,
                   "cannot process flags argument with a compiled pattern");
    }
    return pattern;
  }
  auto* text = pattern.as<StrObject>();
  if (text == nullptr) {
    interp.Raise(interp.types().type_error, "first argument must be string or compiled pattern");
  }
  if (flags & re::kLocale) {
    interp.Raise(interp.types().value_error, "cannot use LOCALE flag with a str pattern");
  }
  if ((flags & re::kAscii) && (flags & re::kUnicode)) {
    interp.Raise(interp.types().value_error, "ASCII and UNICODE flags are incompatible");
  }
  ReState& state = State(interp);
  std::string key = std::to_string(flags) + "/" + text->value;
  if (auto it = state.cache.find(key); it != state.cache.end()) return it->second;
  std::shared_ptr<const re::Program> program;
  try {
    program = std::make_shared<re::Program>(
        re::Program::Compile(DecodeUtf8(text->value), static_cast<int>(flags)));
  } catch (const re::PatternError& error) {
    RaisePatternError(interp, error, text->value);
  }
  if (state.cache.size() >= kMaxCachedPatterns) state.cache.clear();
  Value compiled(std::make_shared<PatternObject>(text->value, std::move(program)));
  state.cache.emplace(std::move(key), compiled);
  return compiled;
}

// Python's clamping of pos/endpos to [0, length].
std::pair<int64_t, int64_t> Bounds(Interpreter& interp, const std::optional<Value>& pos,
                                   const std::optional<Value>& endpos, int64_t length) {
  auto clamp = [&](const std::optional<Value>& v, int64_t fallback) {
    int64_t i = v ? ToIndex(interp, *v) : fallback;
    return std::clamp<int64_t>(i, 0, length);
  };
  return {clamp(pos, 0), clamp(endpos, length)};
}

enum class Mode { kSearch, kMatch, kFullMatch };

Value MatchValue(const std::shared_ptr<MatchObject>& match) {
  return match ? Value(match) : Value();
}

Value Find(Interpreter& interp, const Value& pattern, const Value& string,
           const std::optional<Value>& pos, const std::optional<Value>& endpos, Mode mode) {
  RegexSubject subject = ToSubject(interp, string);
  auto [start, stop] = Bounds(interp, pos, endpos, static_cast<int64_t>(subject.text->size()));
  return MatchValue(RegexSearch(interp, pattern, subject, start, stop, mode != Mode::kSearch,
                                mode == Mode::kFullMatch, false));
}

Value FindIter(Interpreter& interp, const Value& pattern, const Value& string,
               const std::optional<Value>& pos, const std::optional<Value>& endpos) {
  RegexSubject subject = ToSubject(interp, string);
  auto [start, stop] = Bounds(interp, pos, endpos, static_cast<int64_t>(subject.text->size()));
  struct Cursor {
    int64_t pos;
    bool must_advance = false;
    bool done = false;
  };
  auto cursor = std::make_shared<Cursor>(Cursor{start});
  int64_t end = stop;
  return NewIterator(interp, "callable_iterator",
                     [pattern, subject, cursor, end](Interpreter& in) -> std::optional<Value> {
                       if (cursor->done) return std::nullopt;
                       auto match = RegexSearch(in, pattern, subject, cursor->pos, end, false,
                                                false, cursor->must_advance);
                       if (!match) {
                         cursor->done = true;
                         return std::nullopt;
                       }
                       auto [s, e] = match->spans.spans[0];
                       cursor->pos = e;
                       cursor->must_advance = s == e;
                       return Value(match);
                     });
}

// ---- Pattern methods ------------------------------------------------------------------------

template <Mode mode>
Value PatternFind(Interpreter& interp, const Value& self, CallArgs& args) {
  const char* name = mode == Mode::kSearch  ? "search"
                     : mode == Mode::kMatch ? "match"
                                            : "fullmatch";
  auto bound = BindArgs(interp, name, args, {"string", "pos=", "endpos="});
  return Find(interp, self, *bound[0], bound[1], bound[2], mode);
}

template <bool with_count>
Value PatternSub(Interpreter& interp, const Value& self, CallArgs& args) {
  auto bound = BindArgs(interp, with_count ? "subn" : "sub", args, {"repl", "string", "count="});
  int64_t count = bound[2] ? ToIndex(interp, *bound[2]) : 0;
  return RegexSub(interp, self, *bound[0], *bound[1], count, with_count);
}

const MethodEntry kPatternMethods[] = {
    {"search", PatternFind<Mode::kSearch>},
    {"match", PatternFind<Mode::kMatch>},
    {"fullmatch", PatternFind<Mode::kFullMatch>},
    {"sub", PatternSub<false>},
    {"subn", PatternSub<true>},
    {"split",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       auto bound = BindArgs(in, "split", args, {"string", "maxsplit="});
       return RegexSplit(in, self, *bound[0], bound[1] ? ToIndex(in, *bound[1]) : 0);
     }},
    {"findall",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       auto bound = BindArgs(in, "findall", args, {"string", "pos=", "endpos="});
       RegexSubject subject = ToSubject(in, *bound[0]);
       auto [start, stop] =
           Bounds(in, bound[1], bound[2], static_cast<int64_t>(subject.text->size()));
       return RegexFindAll(in, self, *bound[0], start, stop);
     }},
    {"finditer",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       auto bound = BindArgs(in, "finditer", args, {"string", "pos=", "endpos="});
       return FindIter(in, self, *bound[0], bound[1], bound[2]);
     }},
};

// ---- Module functions -------------------------------------------------------------------------

template <Mode mode>
Value ModuleFind(Interpreter& interp, CallArgs& args) {
  const char* name = mode == Mode::kSearch  ? "search"
                     : mode == Mode::kMatch ? "match"
                                            : "fullmatch";
  auto bound = BindArgs(interp, name, args, {"pattern", "string", "flags="});
  return Find(interp, GetPattern(interp, *bound[0], bound[2]), *bound[1], std::nullopt,
              std::nullopt, mode);
}

template <bool with_count>
Value ModuleSub(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, with_count ? "subn" : "sub", args,
                        {"pattern", "repl", "string", "count=", "flags="});
  int64_t count = bound[3] ? ToIndex(interp, *bound[3]) : 0;
  return RegexSub(interp, GetPattern(interp, *bound[0], bound[4]), *bound[1], *bound[2], count,
                  with_count);
}

Value ModuleSplit(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "split", args, {"pattern", "string", "maxsplit=", "flags="});
  return RegexSplit(interp, GetPattern(interp, *bound[0], bound[3]), *bound[1],
                    bound[2] ? ToIndex(interp, *bound[2]) : 0);
}

Value ModuleFindAll(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "findall", args, {"pattern", "string", "flags="});
  Value pattern = GetPattern(interp, *bound[0], bound[2]);
  RegexSubject subject = ToSubject(interp, *bound[1]);
  return RegexFindAll(interp, pattern, *bound[1], 0, static_cast<int64_t>(subject.text->size()));
}

Value ModuleFindIter(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "finditer", args, {"pattern", "string", "flags="});
  return FindIter(interp, GetPattern(interp, *bound[0], bound[2]), *bound[1], std::nullopt,
                  std::nullopt);
}

Value ModuleEscape(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "escape", args, {"pattern"});
  const std::string& text = ToStr(interp, *bound[0], "escape() argument must be str, not %s");
  return MakeStr(EncodeUtf8(re::Escape(DecodeUtf8(text))));
}

}  // namespace

RegexSubject ToSubject(Interpreter& interp, const Value& string) {
  auto* text = string.as<StrObject>();
  if (text == nullptr) {
    interp.Raise(
        interp.types().type_error,
        fmt::format("expected string or bytes-like object, got '{}'", interp.TypeName(string)));
  }
  return RegexSubject{string, std::make_shared<const std::u32string>(DecodeUtf8(text->value))};
}

void RaisePatternError(Interpreter& interp, const re::PatternError& error,
                       const std::string& pattern) {
  std::string message = error.message;
  Value lineno, colno;
  if (error.position) {
    std::u32string text = DecodeUtf8(pattern);
    size_t pos = std::min(*error.position, text.size());
    auto line = static_cast<int64_t>(std::count(text.begin(), text.begin() + pos, U'\n')) + 1;
    size_t last_newline = text.rfind(U'\n', pos == 0 ? 0 : pos - 1);
    int64_t column = static_cast<int64_t>(
        last_newline == std::u32string::npos || pos == 0 ? pos + 1 : pos - last_newline);
    message += fmt::format(" at position {}", pos);
    if (text.find(U'\n') != std::u32string::npos) {
      message += fmt::format(" (line {}, column {})", line, column);
    }
    lineno = Value::Int(line);
    colno = Value::Int(column);
  }
  auto exception = interp.NewException(State(interp).error, {MakeStr(message)});
  exception->attrs["msg"] = MakeStr(error.message);
  exception->attrs["pattern"] = MakeStr(pattern);
  exception->attrs["pos"] =
      error.position ? Value::Int(static_cast<int64_t>(*error.position)) : Value();
  exception->attrs["lineno"] = lineno;
  exception->attrs["colno"] = colno;
  interp.Throw(exception);
}

std::shared_ptr<MatchObject> RegexSearch(Interpreter& interp, const Value& pattern,
                                         const RegexSubject& subject, int64_t pos, int64_t endpos,
                                         bool anchored, bool full, bool must_advance) {
  const re::Program& program = *pattern.as<PatternObject>()->program;
  re::SearchRequest request{.text = *subject.text,
                            .pos = static_cast<size_t>(pos),
                            .endpos = static_cast<size_t>(endpos),
                            .anchored = anchored,
                            .full = full,
                            .must_advance = must_advance};
  size_t length = subject.text->size();
  std::optional<re::MatchSpans> spans = program.Search(request, [&](int64_t steps) {
    interp.Step();
    if (steps > kMaxRegexSteps) {
      interp.Raise(interp.types().runtime_error,
                   fmt::format("regular expression search stopped after {} steps on a string of "
                               "{} characters; nested repeats such as `(a+)+` can backtrack "
                               "exponentially, so make the repeats unambiguous",
                               kMaxRegexSteps, length));
    }
  });
  if (!spans) return nullptr;
  auto match = std::make_shared<MatchObject>(pattern, subject, std::move(*spans), pos, endpos);
  interp.Track(match);
  return match;
}

void ForEachMatch(Interpreter& interp, const Value& pattern, const RegexSubject& subject,
                  int64_t pos, int64_t endpos,
                  const std::function<bool(const std::shared_ptr<MatchObject>&)>& fn) {
  bool must_advance = false;
  while (auto match =
             RegexSearch(interp, pattern, subject, pos, endpos, false, false, must_advance)) {
    if (!fn(match)) return;
    auto [s, e] = match->spans.spans[0];
    pos = e;
    must_advance = s == e;
  }
}

// ---- Pattern objects --------------------------------------------------------------------------

std::string PatternObject::Repr(Interpreter&) const {
  std::string text = StrRepr(pattern);
  std::u32string code_points = DecodeUtf8(text);
  if (code_points.size() > 200) text = EncodeUtf8(code_points.substr(0, 200));
  int flags = program->flags();
  if ((flags & (re::kLocale | re::kUnicode | re::kAscii)) == re::kUnicode) flags &= ~re::kUnicode;
  std::string names = FlagNames(flags, kFlagNames, "re.");
  if (names.empty()) return fmt::format("re.compile({})", text);
  return fmt::format("re.compile({}, {})", text, names);
}

std::optional<Value> PatternObject::GetAttr(Interpreter& interp, std::string_view name) {
  if (name == "pattern") return MakeStr(pattern);
  if (name == "flags") return Value::Int(program->flags());
  if (name == "groups") return Value::Int(program->groups());
  if (name == "groupindex") {
    auto dict = NewDict(interp);
    for (const auto& [group_name, index] : program->group_names()) {
      dict->Set(interp, MakeStr(group_name), Value::Int(index));
    }
    return Value(dict);
  }
  return FindMethod(interp, Value(shared_from_this()), name, kPatternMethods);
}

std::optional<Value> PatternObject::Compare(Interpreter&, lang::CmpOpKind op, const Value& other,
                                            bool) {
  if (op != lang::CmpOpKind::kEq && op != lang::CmpOpKind::kNotEq) return std::nullopt;
  auto* that = other.as<PatternObject>();
  bool equal =
      that != nullptr && that->pattern == pattern && that->program->flags() == program->flags();
  return Value::Bool(equal == (op == lang::CmpOpKind::kEq));
}

std::optional<size_t> PatternObject::Hash(Interpreter&) {
  return std::hash<std::string>{}(pattern) ^ static_cast<size_t>(program->flags());
}

std::shared_ptr<ModuleObject> MakeReModule(Interpreter& interp) {
  auto module = std::make_shared<ModuleObject>("re");
  TypeObject* error = interp.NewExceptionType("error", interp.types().exception);
  error->module = "re";
  State(interp).error = error;
  module->Set("error", TypeValue(error));
  for (const auto& [name, type_name] :
       {std::pair{"Pattern", "re.Pattern"}, {"Match", "re.Match"}}) {
    TypeObject* type = interp.ExtensionType(type_name);
    type->name = name;
    type->module = "re";
    module->Set(name, TypeValue(type));
  }
  const std::pair<const char*, int> flags[] = {
      {"I", re::kIgnoreCase}, {"IGNORECASE", re::kIgnoreCase},
      {"L", re::kLocale},     {"LOCALE", re::kLocale},
      {"M", re::kMultiline},  {"MULTILINE", re::kMultiline},
      {"S", re::kDotAll},     {"DOTALL", re::kDotAll},
      {"X", re::kVerbose},    {"VERBOSE", re::kVerbose},
      {"A", re::kAscii},      {"ASCII", re::kAscii},
      {"U", re::kUnicode},    {"UNICODE", re::kUnicode},
      {"NOFLAG", 0},
  };
  TypeObject* flag_type = interp.ExtensionType("RegexFlag");
  flag_type->module = "re";
  flag_type->base = interp.types().int_type;
  module->Set("RegexFlag", TypeValue(flag_type));
  for (const auto& [name, value] : flags) {
    module->Set(name, Value(std::make_shared<RegexFlagObject>(value)));
  }
  const std::pair<const char*, BuiltinFunctionObject::Fn> functions[] = {
      {"compile",
       [](Interpreter& in, CallArgs& args) {
         auto bound = BindArgs(in, "compile", args, {"pattern", "flags="});
         return GetPattern(in, *bound[0], bound[1]);
       }},
      {"search", ModuleFind<Mode::kSearch>},
      {"match", ModuleFind<Mode::kMatch>},
      {"fullmatch", ModuleFind<Mode::kFullMatch>},
      {"sub", ModuleSub<false>},
      {"subn", ModuleSub<true>},
      {"split", ModuleSplit},
      {"findall", ModuleFindAll},
      {"finditer", ModuleFindIter},
      {"escape", ModuleEscape},
      {"purge",
       [](Interpreter& in, CallArgs& args) {
         NoArgs(in, "purge", args);
         State(in).cache.clear();
         return Value();
       }},
  };
  for (const auto& [name, fn] : functions) module->Set(name, interp.MakeBuiltin(name, fn));
  return module;
}

}  // namespace pz::eval
