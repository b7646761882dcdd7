// What the benchmark's integer inputs mean for a task: the range it draws them from (negative indices included, which
// PyTorch reads from the end), and workloads where that range runs past the tensor an index input points into.
#pragma once

#include <string>
#include <vector>

#include "task/task.h"

namespace kernelarc::judge {

// One line per integer input of the definition, naming the range the benchmark draws it from at random; for a failure
// reason (a candidate that assumes non-negative indices fails on these rounds) or a loader's notes.
std::vector<std::string> integer_input_notes(const task::Definition& definition);

// An integer input drawn at random whose description names another input it indexes into, in a workload where that
// input's first extent is smaller than the drawn range reaches (1024 for int16/32/64, 128 for int8): the reference
// itself indexes out of range on the benchmark's inputs. One line per input and workload; empty when there is none.
std::vector<std::string> input_range_warnings(const task::Task& task);

}  // namespace kernelarc::judge
