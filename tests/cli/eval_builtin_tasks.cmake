# End to end, as a user runs it: `kernelarc eval` on every built-in task's starting candidate passes
# and exits 0, --json prints one parseable document on stdout, and the run lands in the store.
# A wrong candidate exits 1. Run with: cmake -DKERNELARC=... -DWORK=... -P eval_builtin_tasks.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{KERNELARC_CACHE_DIR} ${WORK}/cache)
set(common --json --quiet --rounds 2 --warmup 1 --iterations 3 --store ${WORK}/runs.db --seed 7)
# Three workloads each (a tiny, an odd and a mid-sized shape): what is checked here is the command, its exit code, JSON and
# store; every workload of these candidates is judged by CpuJudgeTest.*StartingCandidatePassesEveryWorkloadWithTimings.
set(workloads_softmax --workload softmax-2x2 --workload softmax-7x1000 --workload softmax-17x3001)
set(workloads_add_rmsnorm --workload add_rmsnorm-1x2048 --workload add_rmsnorm-31x4096 --workload add_rmsnorm-3x16384)
set(workloads_matmul --workload matmul-1x1x1 --workload matmul-200x3x77 --workload matmul-127x255x129)

foreach(task softmax add_rmsnorm matmul)
  execute_process(COMMAND ${KERNELARC} eval ${task} ${CMAKE_CURRENT_LIST_DIR}/../../tasks/${task}/candidate.cpp ${common} ${workloads_${task}}
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "kernelarc eval ${task} exited ${code}\n${out}\n${err}")
  endif()
  string(JSON passed GET "${out}" passed)
  string(JSON count LENGTH "${out}" workloads)
  if(NOT passed OR NOT count EQUAL 3)
    message(FATAL_ERROR "${task}: passed=${passed}, ${count} workloads\n${out}")
  endif()
  string(JSON median GET "${out}" workloads 0 timing median_ns)
  string(JSON samples LENGTH "${out}" workloads 0 timing samples_ns)
  if(NOT samples EQUAL 3 OR median LESS_EQUAL 0)
    message(FATAL_ERROR "${task}: expected 3 timing samples and a positive median, got ${samples} and ${median}")
  endif()
  message(STATUS "${task}: ${count} workloads passed")
endforeach()

# The default candidate (the task's first template) also passes.
execute_process(COMMAND ${KERNELARC} eval matmul --knob BLOCK_K=32 ${common} ${workloads_matmul} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "kernelarc eval matmul (template) exited ${code}\n${out}\n${err}")
endif()

# A wrong candidate fails with exit code 1 and says why.
file(WRITE ${WORK}/wrong.cpp "#include <kernelarc/candidate_abi.h>\nKERNELARC_CANDIDATE(in, n_in, out, n_out, stream) {\n  float* y = static_cast<float*>(out[0]->data);\n  for (long i = 0; i < out[0]->shape[0] * out[0]->shape[1]; ++i) y[i] = 0.5f;\n  return 0;\n}\n")
execute_process(COMMAND ${KERNELARC} eval softmax ${WORK}/wrong.cpp ${common} ${workloads_softmax} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 1)
  message(FATAL_ERROR "a wrong candidate should exit 1, got ${code}\n${out}\n${err}")
endif()
string(JSON status GET "${out}" workloads 0 status)
if(NOT status STREQUAL "INCORRECT_NUMERICAL")
  message(FATAL_ERROR "expected INCORRECT_NUMERICAL, got ${status}")
endif()

if(NOT EXISTS ${WORK}/runs.db)
  message(FATAL_ERROR "no run store was written")
endif()
