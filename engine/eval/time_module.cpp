// The `time` module's clocks (perf_counter, monotonic, time, process_time and their _ns forms)
// and sleep(), which waits in short slices so the run's --timeout still applies; and `timeit`
// with timeit()/repeat() of a callable statement and default_timer.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <thread>

#include "eval/builtin_support.h"

namespace pz::eval {
namespace {

// sleep() waits at most this long between checks of the run's time limit.
constexpr double kSleepSliceSeconds = 0.05;

template <typename Clock>
double Seconds() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

template <typename Clock>
int64_t Nanoseconds() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

double ProcessSeconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

Value Sleep(Interpreter& interp, CallArgs& args) {
  const Value& arg = OneArg(interp, "sleep", args);
  if (!arg.is_number()) {
    interp.Raise(
        interp.types().type_error,
        fmt::format("'{}' object cannot be interpreted as an integer", interp.TypeName(arg)));
  }
  double seconds = arg.number();
  if (seconds < 0) interp.Raise(interp.types().value_error, "sleep length must be non-negative");
  using Duration = std::chrono::steady_clock::duration;
  auto seconds_as = [](double s) {
    return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s));
  };
  auto end = std::chrono::steady_clock::now() + seconds_as(std::min(seconds, 1e9));
  for (;;) {
    interp.CheckClock();
    auto now = std::chrono::steady_clock::now();
    if (now >= end) return Value();
    std::this_thread::sleep_for(std::min<Duration>(end - now, seconds_as(kSleepSliceSeconds)));
  }
}

// timeit's statements are callables here: a string would need the Python compiler at run time.
// The default ("pass") does nothing.
Value Statement(Interpreter& interp, const std::optional<Value>& stmt, const char* what) {
  if (!stmt) return MakeStr("pass");
  if (auto* text = stmt->as<StrObject>()) {
    if (text->value == "pass") return *stmt;
    interp.Raise(interp.types().not_implemented_error,
                 fmt::format("timeit takes the {} as a callable here, not as a string: write "
                             "`timeit.timeit(lambda: f(x), number=100)`",
                             what));
  }
  if (!IsCallable(interp, *stmt)) {
    interp.Raise(interp.types().value_error,
                 fmt::format("{} is neither a string nor callable", what));
  }
  return *stmt;
}

// Runs `stmt` `number` times after `setup`, timed by `timer` (seconds as a float).
double TimeIt(Interpreter& interp, const Value& stmt, const Value& setup, const Value& timer,
              int64_t number) {
  if (!setup.is(ObjectKind::kStr)) interp.Call(setup, std::vector<Value>{});
  auto now = [&] {
    if (timer.is_none()) return Seconds<std::chrono::steady_clock>();
    return ToDouble(interp, interp.Call(timer, std::vector<Value>{}));
  };
  double start = now();
  if (!stmt.is(ObjectKind::kStr)) {
    for (int64_t i = 0; i < number; ++i) {
      interp.Step();
      interp.Call(stmt, std::vector<Value>{});
    }
  }
  return now() - start;
}

// timeit(stmt, setup, timer, number, globals) and repeat(..., repeat, number, globals).
Value TimeItFunction(Interpreter& interp, CallArgs& args, bool repeat) {
  auto bound = repeat ? BindArgs(interp, "repeat", args,
                                 {"stmt=", "setup=", "timer=", "repeat=", "number=", "globals="})
                      : BindArgs(interp, "timeit", args,
                                 {"stmt=", "setup=", "timer=", "number=", "globals="});
  Value stmt = Statement(interp, bound[0], "stmt");
  Value setup = Statement(interp, bound[1], "setup");
  Value timer = bound[2].value_or(Value());
  const std::optional<Value>& number_arg = bound[repeat ? 4 : 3];
  int64_t number = number_arg ? ToIndex(interp, *number_arg) : 1'000'000;
  int64_t rounds = repeat && bound[3] ? ToIndex(interp, *bound[3]) : 5;
  if (!repeat) return Value::Float(TimeIt(interp, stmt, setup, timer, number));
  std::vector<Value> times;
  for (int64_t i = 0; i < rounds; ++i) {
    times.push_back(Value::Float(TimeIt(interp, stmt, setup, timer, number)));
  }
  return NewList(interp, std::move(times));
}

}  // namespace

std::shared_ptr<ModuleObject> MakeTimeModule(Interpreter& interp) {
  using std::chrono::steady_clock;
  using std::chrono::system_clock;
  auto module = std::make_shared<ModuleObject>("time");
  auto clock = [&](const char* name, auto read) {
    module->Set(name, interp.MakeBuiltin(name, [name, read](Interpreter& in, CallArgs& args) {
      NoArgs(in, name, args);
      return read();
    }));
  };
  clock("perf_counter", [] { return Value::Float(Seconds<steady_clock>()); });
  clock("perf_counter_ns", [] { return Value::Int(Nanoseconds<steady_clock>()); });
  clock("monotonic", [] { return Value::Float(Seconds<steady_clock>()); });
  clock("monotonic_ns", [] { return Value::Int(Nanoseconds<steady_clock>()); });
  clock("time", [] { return Value::Float(Seconds<system_clock>()); });
  clock("time_ns", [] { return Value::Int(Nanoseconds<system_clock>()); });
  clock("process_time", [] { return Value::Float(ProcessSeconds()); });
  clock("process_time_ns", [] { return Value::Int(static_cast<int64_t>(ProcessSeconds() * 1e9)); });
  module->Set("sleep", interp.MakeBuiltin("sleep", Sleep));
  return module;
}

std::shared_ptr<ModuleObject> MakeTimeitModule(Interpreter& interp) {
  auto module = std::make_shared<ModuleObject>("timeit");
  module->Set("timeit", interp.MakeBuiltin("timeit", [](Interpreter& in, CallArgs& args) {
    return TimeItFunction(in, args, false);
  }));
  module->Set("repeat", interp.MakeBuiltin("repeat", [](Interpreter& in, CallArgs& args) {
    return TimeItFunction(in, args, true);
  }));
  module->Set("default_timer", interp.FindModule("time")->attrs.at("perf_counter"));
  return module;
}

}  // namespace pz::eval
