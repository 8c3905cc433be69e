# Warning flags for our own targets; -Werror when SKSS_WERROR (CI) is on.
function(skss_target_warnings target)
  # POSIX (threads, posix_memalign, sysconf) on top of strict C11.
  target_compile_definitions(${target} PRIVATE _POSIX_C_SOURCE=200809L _DEFAULT_SOURCE)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion
      -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wformat=2>)
  if(SKSS_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-Werror>
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
  if(SKSS_SANITIZE)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer>)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()
