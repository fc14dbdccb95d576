#include "eval/interpreter.h"

#include <gtest/gtest.h>

#include "unit/eval/run_helper.h"

namespace pz::eval {
namespace {

using testing::Output;
using testing::RunProgram;

TEST(Interpreter, PrintsLikePython) {
  EXPECT_EQ(Output("print(1, 2.5, 'a', None, True, [1, 'b'], (1,), {'k': 2})\n"),
            "1 2.5 a None True [1, 'b'] (1,) {'k': 2}\n");
}

TEST(Interpreter, ClosuresSeeLateBindingAndNonlocal) {
  EXPECT_EQ(Output("def counter():\n"
                   "    n = 0\n"
                   "    def inc():\n"
                   "        nonlocal n\n"
                   "        n += 1\n"
                   "        return n\n"
                   "    return inc\n"
                   "c = counter()\n"
                   "c(); c()\n"
                   "print(c())\n"),
            "3\n");
}

TEST(Interpreter, GlobalStatementWritesModuleScope) {
  EXPECT_EQ(Output("x = 1\ndef f():\n    global x\n    x = 5\nf()\nprint(x)\n"), "5\n");
}

TEST(Interpreter, LocalAssignedLaterIsUnboundBeforeAssignment) {
  auto r = RunProgram("x = 1\ndef f():\n    print(x)\n    x = 2\nf()\n");
  EXPECT_EQ(r.error,
            "UnboundLocalError: cannot access local variable 'x' where it is not associated with "
            "a value");
  EXPECT_EQ(r.error_line, 3);
}

TEST(Interpreter, ComprehensionVariablesDoNotLeak) {
  EXPECT_EQ(Output("i = 'outer'\nsq = [i * i for i in range(4)]\nprint(sq, i)\n"),
            "[0, 1, 4, 9] outer\n");
}

TEST(Interpreter, ArgumentBindingFollowsPython) {
  EXPECT_EQ(Output("def f(a, b=2, *rest, key=None, **extra):\n"
                   "    return (a, b, rest, key, extra)\n"
                   "print(f(1))\n"
                   "print(f(1, 3, 4, 5, key='k', z=9))\n"
                   "print(f(*[7, 8], **{'key': 1}))\n"),
            "(1, 2, (), None, {})\n(1, 3, (4, 5), 'k', {'z': 9})\n(7, 8, (), 1, {})\n");
}

TEST(Interpreter, ReportsCPythonArgumentErrors) {
  EXPECT_EQ(RunProgram("def f(a, b):\n    pass\nf(1)\n").error,
            "TypeError: f() missing 1 required positional argument: 'b'");
  EXPECT_EQ(RunProgram("def f(a):\n    pass\nf(1, 2)\n").error,
            "TypeError: f() takes 1 positional argument but 2 were given");
  EXPECT_EQ(RunProgram("def f(a, b=1):\n    pass\nf(1, 2, 3)\n").error,
            "TypeError: f() takes from 1 to 2 positional arguments but 3 were given");
  EXPECT_EQ(RunProgram("def f(a):\n    pass\nf(1, a=2)\n").error,
            "TypeError: f() got multiple values for argument 'a'");
  EXPECT_EQ(RunProgram("def f(a):\n    pass\nf(b=2)\n").error,
            "TypeError: f() got an unexpected keyword argument 'b'");
  EXPECT_EQ(RunProgram("def f(*, k):\n    pass\nf()\n").error,
            "TypeError: f() missing 1 required keyword-only argument: 'k'");
}

TEST(Interpreter, ExceptionsAreCaughtByTypeHierarchy) {
  EXPECT_EQ(Output("try:\n"
                   "    {}['x']\n"
                   "except LookupError as e:\n"
                   "    print('caught', repr(e), str(e))\n"
                   "finally:\n"
                   "    print('done')\n"),
            "caught KeyError('x') 'x'\ndone\n");
}

TEST(Interpreter, FinallyRunsWhenReturning) {
  EXPECT_EQ(Output("def f():\n"
                   "    try:\n"
                   "        return 1\n"
                   "    finally:\n"
                   "        print('cleanup')\n"
                   "print(f())\n"),
            "cleanup\n1\n");
}

TEST(Interpreter, BareRaiseReraisesTheHandledException) {
  auto r = RunProgram("try:\n    1 / 0\nexcept ZeroDivisionError:\n    raise\n");
  EXPECT_EQ(r.error, "ZeroDivisionError: division by zero");
  EXPECT_EQ(r.error_line, 2);
}

TEST(Interpreter, UncaughtErrorInNestedCallHasTraceback) {
  auto r = RunProgram(
      "def inner(x):\n"
      "    return x[5]\n"
      "def outer():\n"
      "    return inner([1, 2])\n"
      "outer()\n");
  EXPECT_EQ(r.error, "IndexError: list index out of range");
  EXPECT_EQ(r.error_line, 2);
  EXPECT_NE(r.rendered.find("Traceback (most recent call last):\n"
                            "  File \"test.py\", line 5, in <module>\n"
                            "    outer()\n"
                            "  File \"test.py\", line 4, in outer\n"
                            "    return inner([1, 2])\n"
                            "  File \"test.py\", line 2, in inner\n"),
            std::string::npos)
      << r.rendered;
}

TEST(Interpreter, UnknownNameSuggestsCloseMatch) {
  auto r = RunProgram("length = 3\nprint(lenght)\n");
  EXPECT_EQ(r.error, "NameError: name 'lenght' is not defined");
  EXPECT_NE(r.rendered.find("did you mean `length`?"), std::string::npos);
}

TEST(Interpreter, StepLimitStopsEndlessLoops) {
  auto r = RunProgram("x = 0\nwhile True:\n    x += 1\n", InterpreterOptions{.max_steps = 1000});
  EXPECT_NE(r.error.find("step limit of 1000 exceeded"), std::string::npos);
}

TEST(Interpreter, StepLimitCannotBeCaught) {
  auto r = RunProgram(
      "try:\n    while True:\n        pass\nexcept BaseException:\n"
      "    print('swallowed')\n",
      InterpreterOptions{.max_steps = 500});
  EXPECT_NE(r.error.find("step limit"), std::string::npos);
  EXPECT_EQ(r.output, "");
}

TEST(Interpreter, WallClockLimitStopsLongRuns) {
  auto r = RunProgram("while True:\n    pass\n",
                      InterpreterOptions{.max_steps = 0, .timeout_seconds = 0.05});
  EXPECT_NE(r.error.find("time limit"), std::string::npos);
}

TEST(Interpreter, RunawayRecursionRaisesRecursionError) {
  auto r = RunProgram("def f(n):\n    return f(n + 1)\nf(0)\n");
  EXPECT_EQ(r.error, "RecursionError: maximum recursion depth exceeded");
  EXPECT_EQ(r.error_line, 2);
}

TEST(Interpreter, IntegerOverflowIsAnError) {
  EXPECT_NE(RunProgram("print(2 ** 70)\n").error.find("OverflowError"), std::string::npos);
  EXPECT_NE(RunProgram("x = 9223372036854775807\nx + 1\n").error.find("OverflowError"),
            std::string::npos);
}

TEST(Interpreter, FloorDivisionAndModuloFollowPython) {
  EXPECT_EQ(Output("print(-7 // 2, -7 % 2, 7 // -2, 7 % -2, -7.5 // 2, -7.5 % 2)\n"),
            "-4 1 -4 -1 -4.0 0.5\n");
}

TEST(Interpreter, ChainedComparisonsShortCircuit) {
  EXPECT_EQ(Output("def f(x):\n    print('f', x)\n    return x\nprint(1 < f(0) < f(5))\n"),
            "f 0\nFalse\n");
}

TEST(Interpreter, BooleanOperatorsReturnOperands) {
  EXPECT_EQ(Output("print(0 or 'x', [] and 1, None or 0, 3 and 4)\n"), "x [] 0 4\n");
}

TEST(Interpreter, UnpackingReportsCountMismatch) {
  EXPECT_EQ(RunProgram("a, b = [1, 2, 3]\n").error,
            "ValueError: too many values to unpack (expected 2)");
  EXPECT_EQ(Output("a, *b, c = range(5)\nprint(a, b, c)\n"), "0 [1, 2, 3] 4\n");
}

TEST(Interpreter, DecoratorsApplyBottomUp) {
  EXPECT_EQ(Output("def tag(t):\n"
                   "    def wrap(f):\n"
                   "        return lambda: t + f()\n"
                   "    return wrap\n"
                   "@tag('a')\n@tag('b')\ndef g():\n    return 'c'\nprint(g())\n"),
            "abc\n");
}

TEST(Interpreter, FStringsFormatFields) {
  EXPECT_EQ(Output("x = 3.14159\nn = 7\nw = 6\n"
                   "print(f'{x:.2f}|{n:03d}|{n!r}|{x=}|{n:>{w}}|{{lit}}')\n"),
            "3.14|007|7|x=3.14159|     7|{lit}\n");
}

TEST(Interpreter, ImportOfUnknownModuleListsAvailableModules) {
  auto r = RunProgram("import numpyy\n");
  EXPECT_EQ(r.error, "ModuleNotFoundError: No module named 'numpyy'");
  EXPECT_NE(r.rendered.find("did you mean `numpy`?"), std::string::npos);
  EXPECT_NE(r.rendered.find("math"), std::string::npos);
}

TEST(Interpreter, ImportBindsDottedModules) {
  EXPECT_EQ(Output("import jax.numpy as jnp\nimport jax\nprint(jnp is jax.numpy)\n"), "True\n");
}

TEST(Interpreter, SelfReferencingListPrintsEllipsis) {
  EXPECT_EQ(Output("a = [1]\na.append(a)\nprint(a)\n"), "[1, [...]]\n");
}

TEST(Interpreter, ClosureCyclesAreFreedAtTeardown) {
  // Leak checkers (ASan's LeakSanitizer in CI) flag this test if cycles survive teardown.
  EXPECT_EQ(Output("def make():\n"
                   "    data = [1, 2]\n"
                   "    def get():\n"
                   "        return data\n"
                   "    return get\n"
                   "fs = [make() for _ in range(100)]\n"
                   "print(len(fs))\n"),
            "100\n");
}

TEST(Interpreter, ExceptionTypesMustDeriveFromBaseException) {
  EXPECT_EQ(RunProgram("raise 5\n").error, "TypeError: exceptions must derive from BaseException");
}

}  // namespace
}  // namespace pz::eval

namespace pz::eval {
namespace {

struct CounterState {
  int count = 0;
};
struct OtherState {
  int count = 0;
};

TEST(Interpreter, StateIsOneObjectPerTypeMadeOnFirstUse) {
  SourceManager sources;
  Interpreter interp(sources, InterpreterOptions{});
  EXPECT_EQ(interp.FindState<CounterState>(), nullptr);
  ++interp.State<CounterState>().count;
  ++interp.State<CounterState>().count;
  ASSERT_NE(interp.FindState<CounterState>(), nullptr);
  EXPECT_EQ(interp.FindState<CounterState>()->count, 2);
  // Another type has a state of its own.
  EXPECT_EQ(interp.FindState<OtherState>(), nullptr);
  EXPECT_EQ(interp.State<OtherState>().count, 0);
  // SetState installs an object made elsewhere, replacing the one there was.
  auto made = std::make_shared<CounterState>();
  made->count = 7;
  interp.SetState(made);
  EXPECT_EQ(&interp.State<CounterState>(), made.get());
  EXPECT_EQ(interp.State<CounterState>().count, 7);
}

}  // namespace
}  // namespace pz::eval
