# The layer rule of docs/DESIGN.md, checked on every build: a source under src/<layer>/ may include only headers of the
# layers below it. Run as `cmake -DSOURCE_DIR=<tree holding src/> -P check_layers.cmake`; it fails naming each wrong
# include. The libraries' PRIVATE links say the same for symbols; this says it for headers, which a link cannot see.
cmake_minimum_required(VERSION 3.20)  # IN_LIST in script mode
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check_layers.cmake: pass -DSOURCE_DIR=<the folder that holds src/>")
endif()

# What each layer may include besides itself (and the public include/kernelarc/ headers, which any layer may use).
set(allowed_common "")
set(allowed_task common)
set(allowed_store common)
set(allowed_llm common)
set(allowed_judge common task)
set(allowed_engine common task judge store)
set(allowed_brains common task judge store engine llm)
set(allowed_report common task judge store engine)
set(allowed_cli common task judge store engine llm brains report)
set(layers common task store llm judge engine brains report cli)

set(wrong "")
foreach(layer IN LISTS layers)
  file(GLOB_RECURSE sources "${SOURCE_DIR}/src/${layer}/*.h" "${SOURCE_DIR}/src/${layer}/*.cpp" "${SOURCE_DIR}/src/${layer}/*.cu")
  foreach(source IN LISTS sources)
    file(STRINGS "${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<][a-z_]+/")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]([a-z_]+)/([^\">]*)[\">].*$" "\\1;\\2" parts "${line}")
      list(GET parts 0 target)
      list(GET parts 1 header)
      if(target STREQUAL layer OR NOT target IN_LIST layers)
        continue()  # its own layer, or not a layer at all (a system or library header, include/kernelarc/)
      endif()
      if(NOT target IN_LIST allowed_${layer})
        file(RELATIVE_PATH shown "${SOURCE_DIR}" "${source}")
        string(REPLACE ";" ", " may "${allowed_${layer}}")
        string(APPEND wrong "\n  ${shown} includes ${target}/${header}: the ${layer} layer may include only ${may}")
      endif()
    endforeach()
  endforeach()
endforeach()

if(wrong)
  message(FATAL_ERROR "an include runs against the layers (docs/DESIGN.md):${wrong}")
endif()
