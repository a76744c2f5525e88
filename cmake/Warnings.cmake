# mt_warnings(target): the warning set every first-party target compiles with.
function(mt_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
endfunction()
