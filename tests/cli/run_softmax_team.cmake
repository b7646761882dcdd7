# What issue 4 promises a user without a GPU: `kernelarc run` on the built-in softmax task with 4 agents and a budget
# of 64 candidates finishes on a 2-core machine in a few minutes and ends faster than its starting candidate, every
# candidate judged for real (builds, workers, timing) and recorded with its conclusion.
# Run with: cmake -DKERNELARC=... -DWORK=... -P run_softmax_team.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{KERNELARC_CACHE_DIR} ${WORK}/cache)
string(TIMESTAMP started "%s")
execute_process(COMMAND ${KERNELARC} run softmax --agents 4 --budget 64 --seed 3 --json --store ${WORK}/runs.db
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP ended "%s")
math(EXPR seconds "${ended} - ${started}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "kernelarc run exited ${code}\n${out}\n${err}")
endif()
string(JSON judged GET "${out}" judged)
string(JSON speedup GET "${out}" speedup)
string(JSON agents LENGTH "${out}" agents)
string(JSON board GET "${out}" board_size)
message(STATUS "64-candidate run: ${judged} judged in ${seconds} s, ${speedup}x the start, board ${board}")
# 64, and one more when the run ends with a candidate composed by shape class (--specialise, on by default).
if(NOT (judged EQUAL 64 OR judged EQUAL 65) OR NOT agents EQUAL 4)
  message(FATAL_ERROR "expected 64 candidates (65 with a composed one) from 4 agents, got ${judged} from ${agents}\n${out}")
endif()
if(speedup LESS_EQUAL 1.0)
  message(FATAL_ERROR "the run did not end faster than its start (${speedup}x)\n${out}")
endif()
if(board LESS 63)
  message(FATAL_ERROR "one conclusion per candidate after the start was expected, the board has ${board}\n${out}")
endif()
# "A few minutes": the bound is generous for a loaded CI machine; the figure itself is printed above.
if(seconds GREATER 900)
  message(FATAL_ERROR "the run took ${seconds} s")
endif()
