// A fixture of the layer check (cmake/check_layers.cmake), never compiled: the judge reaching up into the engine.
#include "engine/run.h"
#include "task/task.h"
