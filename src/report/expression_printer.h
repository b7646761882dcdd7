// A task expression (axes, knobs, launch geometry) printed as C++ that computes the same double as
// task::Expression::evaluate, for generated host code: exported launchers evaluate the template's
// geometry per call instead of carrying an interpreter.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "task/expression.h"

namespace kernelarc::report {

// Variable name -> C++ text that yields its value (anything convertible to double: a macro, a local).
using CppNames = std::map<std::string, std::string, std::less<>>;

// C++ for `expression` in double arithmetic with Python's semantics (// and % floor, comparisons and
// `and`/`or` give 1.0 or 0.0). Calls the helpers of expression_helpers_cpp(). Throws std::invalid_argument
// naming a variable that `names` lacks.
std::string expression_to_cpp(const task::Expression& expression, const CppNames& names);

// The C++ (and CUDA host) definitions the printed expressions call: floor division, modulo, ceil_div and
// the integer check of a launch dimension. Needs <math.h>.
std::string_view expression_helpers_cpp();

}  // namespace kernelarc::report
