// Helpers shared by the builtin functions, type constructors, methods and modules (internal to
// eval/): CPython-style argument checks, conversions with CPython's TypeErrors, container and
// iterator construction, sorting, UTF-8 string positions, and the method tables' plumbing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/interpreter.h"
#include "eval/value.h"

namespace pz::eval {

// Longest string a padding method or a `%*d` width may build (the limit operators.cpp puts on
// `str * n`): beyond it the program is almost certainly wrong and would exhaust memory.
constexpr int64_t kMaxStringLength = int64_t{1} << 24;
// OverflowError "resulting string is too large" when `length` exceeds kMaxStringLength.
void CheckStringLength(Interpreter& interp, int64_t length);

// ---- Argument checks with CPython's messages -------------------------------------------------
// "len() takes no keyword arguments"
void CheckNoKeywords(Interpreter& interp, std::string_view function, const CallArgs& args);
// METH_O style: "len() takes exactly one argument (2 given)"; rejects keywords. Returns the arg.
const Value& OneArg(Interpreter& interp, std::string_view function, const CallArgs& args);
// METH_NOARGS style: "list.reverse() takes no arguments (1 given)"; rejects keywords.
void NoArgs(Interpreter& interp, std::string_view function, const CallArgs& args);
// _PyArg_CheckPositional style: "divmod expected 2 arguments, got 3", "min expected at least 1
// argument, got 0"; rejects keywords. A qualified `function` ("str.strip") names the method in
// the keyword message only, as CPython does.
void CheckArgCount(Interpreter& interp, std::string_view function, const CallArgs& args, size_t min,
                   size_t max);

// ---- Conversions ----------------------------------------------------------------------------
// An int or bool as int64 (extension objects through `__index__`); otherwise TypeError
// "'float' object cannot be interpreted as an integer".
int64_t ToIndex(Interpreter& interp, const Value& value);
// An int, bool or float as double (extension objects through `__float__`); otherwise TypeError
// "must be real number, not str".
double ToDouble(Interpreter& interp, const Value& value);
// Normalises optional slice-style bounds (negative counts from the end, clamped to [0, size]), as
// list.index does.
std::pair<int64_t, int64_t> ClampRange(Interpreter& interp, const std::optional<Value>& start,
                                       const std::optional<Value>& end, int64_t size);
// slice.indices(length): where `slice` starts and stops over `length` items, its step, and how
// many items it selects. TypeError for non-integer bounds, ValueError for a zero step.
struct SliceBounds {
  int64_t start, stop, step, count;
};
SliceBounds ResolveSlice(Interpreter& interp, const SliceObject& slice, int64_t length);
// The string of a str value, or TypeError `message` (with "%s" replaced by the type name).
const std::string& ToStr(Interpreter& interp, const Value& value, std::string_view message);
// int(x) of a float: truncation, with CPython's errors for nan and inf and OverflowError
// beyond int64.
Value FloatToInt(Interpreter& interp, double x);
// callable(x): functions, methods, partials, types, extension objects with `__call__`.
bool IsCallable(Interpreter& interp, const Value& x);
// OverflowError for int64 results that do not fit: integers are 64-bit in this engine.
[[noreturn]] void RaiseIntOverflow(Interpreter& interp);
// Raises `type` with the single argument `arg` (KeyError(key) keeps the key's repr in str(e)).
[[noreturn]] void RaiseWithArg(Interpreter& interp, TypeObject* type, Value arg);
// TypeError: "`callee` missing 2 required `kind` arguments: 'a' and 'b'" (CPython's wording;
// `kind` is "positional" or "keyword-only").
[[noreturn]] void RaiseMissingArguments(Interpreter& interp, std::string_view callee,
                                        const std::vector<std::string>& names,
                                        std::string_view kind);

// ---- Construction (containers are tracked so teardown can break reference cycles) ----------
Value NewList(Interpreter& interp, std::vector<Value> items);
std::shared_ptr<DictObject> NewDict(Interpreter& interp);
std::shared_ptr<SetObject> NewSet(Interpreter& interp);
Value NewIterator(Interpreter& interp, std::string name, IteratorObject::NextFn next);
// The type object of a TypeObject pointer as a Value.
Value TypeValue(TypeObject* type);

// Stable sort by `key(item)` (or the items themselves when key is None) using Python's `<`;
// reverse keeps equal items in their original order, as list.sort does.
std::vector<Value> SortValues(Interpreter& interp, std::vector<Value> items, const Value& key,
                              bool reverse);

// ---- UTF-8 (str values hold UTF-8; Python indexes code points) ------------------------------
// (DecodeUtf8/AppendUtf8 live in eval/format.h.)
size_t Utf8Length(std::string_view s);
// Byte offset of each code point of `s`, plus s.size() at the end.
std::vector<size_t> Utf8Offsets(std::string_view s);

// ---- Methods of built-in kinds --------------------------------------------------------------
// A method implementation: `self` plus the call's arguments (without self).
using MethodFn = Value (*)(Interpreter& interp, const Value& self, CallArgs& args);
struct MethodEntry {
  std::string_view name;
  MethodFn fn;
};
// Looks `name` up in [begin, end) and binds it to `self`; nullopt when absent.
std::optional<Value> BindMethod(Interpreter& interp, const Value& self, std::string_view name,
                                const MethodEntry* begin, const MethodEntry* end);
template <size_t N>
std::optional<Value> FindMethod(Interpreter& interp, const Value& self, std::string_view name,
                                const MethodEntry (&table)[N]) {
  return BindMethod(interp, self, name, table, table + N);
}

// Per-kind method lookups (methods_*.cpp), dispatched by GetBuiltinMethod.
std::optional<Value> GetStrMethod(Interpreter& interp, const Value& self, std::string_view name);
std::optional<Value> GetDictMethod(Interpreter& interp, const Value& self, std::string_view name);
std::optional<Value> GetSetMethod(Interpreter& interp, const Value& self, std::string_view name);

// `'...'.format(*args, **kwargs)` (str_format.cpp).
Value StrFormatMethod(Interpreter& interp, const std::string& format, const CallArgs& args);
// dict.update / dict(...): a mapping or an iterable of pairs, then keyword arguments
// (methods_dict.cpp). `source` may be nullopt.
void DictUpdate(Interpreter& interp, DictObject& dict, const std::optional<Value>& source,
                const std::vector<std::pair<std::string, Value>>& keywords);

// Builtins installed from builtins_iter.cpp (enumerate, zip, map, filter, reversed, iter, next).
void InstallIteratorBuiltins(Interpreter& interp);
// The standard modules written in C++, each in its <name>_module.cpp.
std::shared_ptr<ModuleObject> MakeItertoolsModule(Interpreter& interp);
std::shared_ptr<ModuleObject> MakeJsonModule(Interpreter& interp);
std::shared_ptr<ModuleObject> MakeMathModule(Interpreter& interp);
std::shared_ptr<ModuleObject> MakeOperatorModule(Interpreter& interp);
std::shared_ptr<ModuleObject> MakeReModule(Interpreter& interp);
std::shared_ptr<ModuleObject> MakeTimeModule(Interpreter& interp);
std::shared_ptr<ModuleObject> MakeTimeitModule(Interpreter& interp);

}  // namespace pz::eval
