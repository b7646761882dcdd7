// A verdict that ends a workload's checks inside the judge: the status and a reason an agent can act on.
#pragma once

#include <string>

#include "judge/verdict.h"

namespace kernelarc::judge {

struct Failure {
  Status status;
  std::string reason;
};

}  // namespace kernelarc::judge
