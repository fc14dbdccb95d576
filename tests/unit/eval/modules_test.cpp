// Unit tests of the builtin modules math and functools and the JAX placeholders
// (eval/math_module.cpp, eval/modules.cpp), run as small programs.
// Expected outputs and messages are CPython 3.11's.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "unit/eval/run_helper.h"

namespace pz::eval {
namespace {

// What `program` printed, followed by the message of the error it raised, if any.
std::string Py(std::string_view program) {
  testing::RunResult result = testing::RunProgram(program);
  return result.output + result.error;
}

TEST(Modules, MathFunctionsMatchPython) {
  EXPECT_EQ(Py("import math\nprint(math.pi, math.e, math.tau, math.inf, math.nan)\n"),
            "3.141592653589793 2.718281828459045 6.283185307179586 inf nan\n");
  EXPECT_EQ(Py("import math\nprint(math.sqrt(2), math.exp(1), math.log(8, 2), math.log(100, 10), "
               "math.log2(8), math.log10(1000), math.log1p(1e-10), math.expm1(1e-10))\n"),
            "1.4142135623730951 2.718281828459045 3.0 2.0 3.0 3.0 9.999999999500001e-11 "
            "1.00000000005e-10\n");
  EXPECT_EQ(Py("import math\nprint(math.sin(1), math.cos(1), math.tan(1), math.tanh(0.5), "
               "math.atan(1), math.atan2(1, -1))\n"),
            "0.8414709848078965 0.5403023058681398 1.5574077246549023 0.46211715726000974 "
            "0.7853981633974483 2.356194490192345\n");
  EXPECT_EQ(Py("import math\nprint(math.floor(2.7), math.ceil(2.1), math.floor(-2.5), "
               "math.trunc(-2.7), math.floor(5), type(math.ceil(1.5)))\n"),
            "2 3 -3 -2 5 <class 'int'>\n");
  EXPECT_EQ(Py("import math\nprint(math.fabs(-3), math.pow(2, 10), math.copysign(3, -0.0), "
               "math.erf(0.5), math.hypot(3, 4), math.hypot(1, 2, 2))\n"),
            "3.0 1024.0 -3.0 0.5204998778130465 5.0 3.0\n");
  EXPECT_EQ(Py("import math\nprint(math.degrees(math.pi), math.radians(180), math.isfinite(1.0), "
               "math.isinf(math.inf), math.isnan(math.nan))\n"),
            "180.0 3.141592653589793 True True True\n");
  EXPECT_EQ(Py("import math\nprint(math.isclose(1.0, 1.0 + 1e-10), math.isclose(1.0, 1.1), "
               "math.isclose(0, 1e-10, abs_tol=1e-9), math.isclose(math.inf, math.inf))\n"),
            "True False True True\n");
  EXPECT_EQ(Py("import math\nprint(math.prod([1, 2, 3, 4]), math.prod([]), math.prod([2.5, 2]), "
               "math.prod([2], start=5))\n"),
            "24 1 5.0 10\n");
  EXPECT_EQ(Py("import math\nprint(math.fsum([0.1] * 10), sum([0.1] * 10), math.fsum([1e100, 1.0, "
               "-1e100, 1e-100]), math.fsum([]))\n"),
            "1.0 0.9999999999999999 1.0 0.0\n");
  EXPECT_EQ(Py("import math\nprint(math.gcd(12, 18), math.gcd(), math.gcd(-4, 6, 10), math.lcm(4, "
               "6), math.lcm(), math.lcm(3, 0))\n"),
            "6 0 2 12 1 0\n");
  EXPECT_EQ(Py("import math\nprint(math.factorial(0), math.factorial(20), math.comb(5, 2), "
               "math.comb(60, 30), math.comb(3, 5), math.perm(5, 2), math.perm(4))\n"),
            "1 2432902008176640000 10 118264581564861424 0 20 24\n");
  EXPECT_EQ(Py("import math\nprint(math.isqrt(17), math.modf(2.5), math.frexp(8.0), "
               "math.ldexp(0.5, 4), math.gamma(5), math.lgamma(1))\n"),
            "4 (0.5, 2.0) (0.5, 4) 8.0 24.0 0.0\n");
  EXPECT_EQ(Py("import math\nmath.sqrt(-1)\n"), "ValueError: math domain error");
  EXPECT_EQ(Py("import math\nmath.log(0)\n"), "ValueError: math domain error");
  EXPECT_EQ(Py("import math\nmath.log(-1)\n"), "ValueError: math domain error");
  EXPECT_EQ(Py("import math\nmath.exp(1000)\n"), "OverflowError: math range error");
  EXPECT_EQ(Py("import math\nmath.sin(math.inf)\n"), "ValueError: math domain error");
  EXPECT_EQ(Py("import math\nmath.floor(math.inf)\n"),
            "OverflowError: cannot convert float infinity to integer");
  EXPECT_EQ(Py("import math\nmath.floor(math.nan)\n"),
            "ValueError: cannot convert float NaN to integer");
  EXPECT_EQ(Py("import math\nmath.pow(0, -1)\n"), "ValueError: math domain error");
  EXPECT_EQ(Py("import math\nmath.pow(-1, 0.5)\n"), "ValueError: math domain error");
  EXPECT_EQ(Py("import math\nmath.pow(10, 400)\n"), "OverflowError: math range error");
  EXPECT_EQ(Py("import math\nmath.factorial(-1)\n"),
            "ValueError: factorial() not defined for negative values");
  EXPECT_EQ(Py("import math\nmath.factorial(2.0)\n"),
            "TypeError: 'float' object cannot be interpreted as an integer");
  EXPECT_EQ(Py("import math\nmath.comb(-1, 2)\n"), "ValueError: n must be a non-negative integer");
  EXPECT_EQ(Py("import math\nmath.sqrt('a')\n"), "TypeError: must be real number, not str");
  EXPECT_EQ(Py("import math\nmath.sqrt()\n"),
            "TypeError: math.sqrt() takes exactly one argument (0 given)");
  EXPECT_EQ(Py("import math\nmath.isclose(1, 2, rel_tol=-1)\n"),
            "ValueError: tolerances must be non-negative");
  EXPECT_EQ(Py("import math\nmath.gamma(0)\n"), "ValueError: math domain error");
  EXPECT_EQ(Py("import math\nmath.log(2, 1)\n"), "ZeroDivisionError: float division by zero");
  EXPECT_EQ(Py("import math\nmath.fsum([math.inf, -math.inf])\n"),
            "ValueError: -inf + inf in fsum");
}

TEST(Modules, FunctoolsPartialAndReduce) {
  EXPECT_EQ(Py("import functools\np = functools.partial(lambda a, b, c=0: a + b + c, 1, "
               "c=10)\nprint(p(2), p(2, c=0), p.args, p.func(1, 1))\n"),
            "13 3 (1,) 2\n");
  EXPECT_EQ(Py("from functools import partial\nq = partial(partial(max, 5), 7)\nprint(q(9), q(), "
               "q.args)\n"),
            "9 7 (5, 7)\n");
  EXPECT_EQ(Py("from functools import reduce\nprint(reduce(lambda a, b: a * b, [1, 2, 3, 4]), "
               "reduce(lambda a, b: a + b, [], 10), reduce(lambda a, b: a + b, ['x']))\n"),
            "24 10 x\n");
  EXPECT_EQ(Py("from functools import reduce\nreduce(lambda a, b: a, [])\n"),
            "TypeError: reduce() of empty iterable with no initial value");
  EXPECT_EQ(Py("import functools\nfunctools.partial(1)\n"),
            "TypeError: the first argument must be callable");
}

TEST(Modules, PlaceholderModulesAreImportableAndNested) {
  EXPECT_EQ(
      Py("import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\nfrom "
         "jax.experimental.pallas import tpu as pltpu\nimport numpy as np\nprint(jax.numpy is jnp, "
         "jax.experimental.pallas is pl, pl.tpu is pltpu, jax.scipy.special)\n"),
      "True True True <module 'jax.scipy.special'>\n");
}

}  // namespace
}  // namespace pz::eval
