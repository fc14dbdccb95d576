// Match objects of the `re` module (group/groups/groupdict/start/end/span/expand, indexing,
// CPython's repr) and the functions built on successive matches: sub()/subn() with a template
// (\1, \g<name>) or a callable, split() and findall(), with Python 3.7+'s rules for empty
// matches.
#include <fmt/format.h>

#include "eval/builtin_support.h"
#include "eval/format.h"
#include "eval/re_module.h"

namespace pz::eval {
namespace {

MatchObject& Self(const Value& self) { return *self.as<MatchObject>(); }

Value GroupArgs(Interpreter& interp, const Value& self, CallArgs& args) {
  CheckNoKeywords(interp, "group", args);
  MatchObject& match = Self(self);
  if (args.positional.empty()) return match.Group(0);
  if (args.positional.size() == 1) {
    return match.Group(match.GroupIndex(interp, args.positional[0]));
  }
  std::vector<Value> items;
  for (const Value& key : args.positional)
    items.push_back(match.Group(match.GroupIndex(interp, key)));
  return MakeTuple(std::move(items));
}

// start(), end() and span() of a group.
template <int which>
Value Position(Interpreter& interp, const Value& self, CallArgs& args) {
  const char* name = which == 0 ? "start" : which == 1 ? "end" : "span";
  CheckArgCount(interp, name, args, 0, 1);
  MatchObject& match = Self(self);
  int group = args.positional.empty() ? 0 : match.GroupIndex(interp, args.positional[0]);
  auto [s, e] = match.spans.spans[group];
  if (which == 0) return Value::Int(s);
  if (which == 1) return Value::Int(e);
  return MakeTuple({Value::Int(s), Value::Int(e)});
}

// Parses `repl` as sub()'s template for the pattern of `match`s, raising as CPython does.
std::vector<re::TemplatePiece> ParseTemplate(Interpreter& interp, const re::Program& program,
                                             const std::string& repl) {
  std::string unknown;
  std::vector<re::TemplatePiece> pieces;
  try {
    pieces = re::ParseTemplate(DecodeUtf8(repl), program, unknown);
  } catch (const re::PatternError& error) {
    RaisePatternError(interp, error, repl);
  }
  if (!unknown.empty()) {
    interp.Raise(interp.types().index_error,
                 fmt::format("unknown group name {}", StrRepr(unknown)));
  }
  return pieces;
}

void Expand(const MatchObject& match, const std::vector<re::TemplatePiece>& pieces,
            std::u32string& out) {
  for (const re::TemplatePiece& piece : pieces) {
    out += piece.literal;
    if (piece.group < 0) continue;
    auto [s, e] = match.spans.spans[piece.group];
    if (s >= 0) out.append(*match.subject.text, s, e - s);
  }
}

const MethodEntry kMatchMethods[] = {
    {"group", GroupArgs},
    {"groups",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       auto bound = BindArgs(in, "groups", args, {"default="});
       Value missing = bound[0] ? *bound[0] : Value();
       std::vector<Value> items;
       for (int g = 1; g <= Self(self).program().groups(); ++g) {
         items.push_back(Self(self).Group(g, missing));
       }
       return MakeTuple(std::move(items));
     }},
    {"groupdict",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       auto bound = BindArgs(in, "groupdict", args, {"default="});
       Value missing = bound[0] ? *bound[0] : Value();
       auto dict = NewDict(in);
       for (const auto& [name, group] : Self(self).program().group_names()) {
         dict->Set(in, MakeStr(name), Self(self).Group(group, missing));
       }
       return Value(dict);
     }},
    {"start", Position<0>},
    {"end", Position<1>},
    {"span", Position<2>},
    {"expand",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       const Value& repl = OneArg(in, "expand", args);
       const std::string& text = ToStr(in, repl, "expected str instance, %s found");
       std::u32string out;
       Expand(Self(self), ParseTemplate(in, Self(self).program(), text), out);
       return MakeStr(EncodeUtf8(out));
     }},
};

}  // namespace

// ---- Match objects ------------------------------------------------------------------------------

Value MatchObject::Group(int group, const Value& missing) const {
  auto [s, e] = spans.spans[group];
  if (s < 0) return missing;
  return MakeStr(EncodeUtf8(std::u32string_view(*subject.text).substr(s, e - s)));
}

int MatchObject::GroupIndex(Interpreter& interp, const Value& key) const {
  if (key.is_integral()) {
    int64_t group = key.integral();
    if (group >= 0 && group <= program().groups()) return static_cast<int>(group);
  } else if (auto* name = key.as<StrObject>()) {
    if (int group = program().GroupIndex(name->value); group >= 0) return group;
  }
  interp.Raise(interp.types().index_error, "no such group");
}

std::string MatchObject::Repr(Interpreter&) const {
  std::u32string text = DecodeUtf8(StrRepr(Group(0).as<StrObject>()->value));
  if (text.size() > 50) text.resize(50);
  auto [s, e] = spans.spans[0];
  return fmt::format("<re.Match object; span=({}, {}), match={}>", s, e, EncodeUtf8(text));
}

std::optional<Value> MatchObject::GetAttr(Interpreter& interp, std::string_view name) {
  if (name == "string") return subject.value;
  if (name == "re") return pattern;
  if (name == "pos") return Value::Int(pos);
  if (name == "endpos") return Value::Int(endpos);
  if (name == "lastindex") return spans.last_group > 0 ? Value::Int(spans.last_group) : Value();
  if (name == "lastgroup") {
    for (const auto& [group_name, group] : program().group_names()) {
      if (group == spans.last_group) return MakeStr(group_name);
    }
    return Value();
  }
  if (name == "regs") {
    std::vector<Value> regs;
    for (auto [s, e] : spans.spans) regs.push_back(MakeTuple({Value::Int(s), Value::Int(e)}));
    return MakeTuple(std::move(regs));
  }
  return FindMethod(interp, Value(shared_from_this()), name, kMatchMethods);
}

std::optional<Value> MatchObject::GetItem(Interpreter& interp, const Value& key) {
  return Group(GroupIndex(interp, key));
}

// ---- sub, split, findall ------------------------------------------------------------------------

Value RegexSub(Interpreter& interp, const Value& pattern, const Value& repl, const Value& string,
               int64_t count, bool with_count) {
  const re::Program& program = *pattern.as<PatternObject>()->program;
  RegexSubject subject = ToSubject(interp, string);
  std::vector<re::TemplatePiece> pieces;
  bool call = false;
  if (auto* text = repl.as<StrObject>()) {
    pieces = text->value.find('\\') == std::string::npos
                 ? std::vector<re::TemplatePiece>{{DecodeUtf8(text->value), -1}}
                 : ParseTemplate(interp, program, text->value);
  } else if (IsCallable(interp, repl)) {
    call = true;
  } else {
    interp.Raise(interp.types().type_error,
                 fmt::format("expected str instance, {} found", interp.TypeName(repl)));
  }
  const std::u32string& text = *subject.text;
  std::u32string out;
  int64_t done = 0, last = 0;
  if (count >= 0) {
    ForEachMatch(interp, pattern, subject, 0, static_cast<int64_t>(text.size()),
                 [&](const std::shared_ptr<MatchObject>& match) {
                   auto [s, e] = match->spans.spans[0];
                   out.append(text, last, s - last);
                   if (call) {
                     Value piece = interp.Call(repl, std::vector<Value>{Value(match)});
                     const std::string& str =
                         ToStr(interp, piece, "expected str instance, %s found");
                     out += DecodeUtf8(str);
                   } else {
                     Expand(*match, pieces, out);
                   }
                   last = e;
                   return ++done != count;
                 });
  }
  out.append(text, last);
  Value result = MakeStr(EncodeUtf8(out));
  return with_count ? MakeTuple({result, Value::Int(done)}) : result;
}

Value RegexSplit(Interpreter& interp, const Value& pattern, const Value& string, int64_t maxsplit) {
  RegexSubject subject = ToSubject(interp, string);
  const std::u32string& text = *subject.text;
  std::vector<Value> out;
  int64_t last = 0, done = 0;
  auto slice = [&](int64_t s, int64_t e) {
    return MakeStr(EncodeUtf8(std::u32string_view(text).substr(s, e - s)));
  };
  if (maxsplit >= 0) {
    ForEachMatch(interp, pattern, subject, 0, static_cast<int64_t>(text.size()),
                 [&](const std::shared_ptr<MatchObject>& match) {
                   auto [s, e] = match->spans.spans[0];
                   out.push_back(slice(last, s));
                   for (int g = 1; g <= match->program().groups(); ++g) {
                     out.push_back(match->Group(g));
                   }
                   last = e;
                   return ++done != maxsplit;
                 });
  }
  out.push_back(slice(last, static_cast<int64_t>(text.size())));
  return NewList(interp, std::move(out));
}

Value RegexFindAll(Interpreter& interp, const Value& pattern, const Value& string, int64_t pos,
                   int64_t endpos) {
  RegexSubject subject = ToSubject(interp, string);
  int groups = pattern.as<PatternObject>()->program->groups();
  std::vector<Value> out;
  Value empty = MakeStr("");
  ForEachMatch(interp, pattern, subject, pos, endpos,
               [&](const std::shared_ptr<MatchObject>& match) {
                 if (groups <= 1) {
                   out.push_back(match->Group(groups, empty));
                 } else {
                   std::vector<Value> items;
                   for (int g = 1; g <= groups; ++g) items.push_back(match->Group(g, empty));
                   out.push_back(MakeTuple(std::move(items)));
                 }
                 return true;
               });
  return NewList(interp, std::move(out));
}

}  // namespace pz::eval
