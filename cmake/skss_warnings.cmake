# Warning flags for our own targets; -Werror when SKSS_WERROR (CI) is on.
# Sanitizers: SKSS_SANITIZE (ASan + UBSan) or SKSS_TSAN (ThreadSanitizer,
# for the threaded CPU code; the CUDA backend is not built with it). Their
# link options are PUBLIC, so whatever links a sanitized static library gets
# the runtime too.
option(SKSS_TSAN "Build with ThreadSanitizer (CPU only)" OFF)
if(SKSS_TSAN AND SKSS_SANITIZE)
  message(FATAL_ERROR "skss: SKSS_TSAN and SKSS_SANITIZE cannot be combined (ThreadSanitizer "
    "and AddressSanitizer exclude each other); pick one")
endif()

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
    target_link_options(${target} PUBLIC -fsanitize=address,undefined)
  endif()
  if(SKSS_TSAN)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-fsanitize=thread -fno-omit-frame-pointer>)
    target_link_options(${target} PUBLIC -fsanitize=thread)
  endif()
endfunction()
