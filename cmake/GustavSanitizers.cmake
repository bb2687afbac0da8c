# Gustav_SANITIZE=address;undefined adds the sanitizers to every Gustav target
# (CPU builds only: nvcc does not instrument device code).
if(Gustav_SANITIZE)
  string(REPLACE ";" "," _gustav_sanitizers "${Gustav_SANITIZE}")
  add_compile_options(-fsanitize=${_gustav_sanitizers} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_gustav_sanitizers})
  message(STATUS "Gustav: sanitizers ${_gustav_sanitizers}")
endif()
