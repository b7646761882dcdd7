# The layer rule for symbols. A static library leaves its undefined symbols to the final link, where every layer is
# present, so a call that runs the wrong way would link. kernelarc_check_layer_link(<library>) links the library alone
# and whole (every object, not only those a program needs) with only the libraries it declares: a call into a layer it
# may not use is an undefined reference there, and the build fails. tests/layers/wrong_link shows one such failure.
include_guard(GLOBAL)

function(kernelarc_check_layer_link library)
  set(main ${CMAKE_CURRENT_BINARY_DIR}/layer_link_check_main.cpp)
  if(NOT EXISTS ${main})
    file(WRITE ${main} "int main() { return 0; }  // never run: linking it is the check\n")
  endif()
  add_executable(${library}_link_check ${main})
  target_link_libraries(${library}_link_check PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${library}>")
endfunction()
