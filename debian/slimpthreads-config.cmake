# CMake package of slimpthreads, as the Debian packages install it under
# /usr/<triplet>/lib/cmake/slimpthreads (found by a MinGW-w64 cross build whose
# CMAKE_FIND_ROOT_PATH is /usr/<triplet>):
#
#   find_package(slimpthreads REQUIRED)
#   target_link_libraries(prog PRIVATE slimpthreads::slimpthreads)
#
# Targets: slimpthreads::slimpthreads (the DLL, libslimpthreads-0.dll, to ship
# with the program), slimpthreads::static (a self-contained .exe),
# slimpthreads::checked (the checked build's DLL, README.md "Checked build").
# Paths are taken from this file's place, <prefix>/lib/cmake/slimpthreads.

get_filename_component(_slimpthreads_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(slimpthreads_INCLUDE_DIRS "${_slimpthreads_prefix}/include/slimpthreads")
set(_slimpthreads_libdir "${_slimpthreads_prefix}/lib/slimpthreads")

# One imported target; a DLL's is its import library and the DLL beside it.
function(_slimpthreads_target target library dll definitions)
  if(TARGET slimpthreads::${target})
    return()
  endif()
  if(dll)
    add_library(slimpthreads::${target} SHARED IMPORTED)
    set_target_properties(slimpthreads::${target} PROPERTIES
      IMPORTED_IMPLIB "${_slimpthreads_libdir}/lib${library}.dll.a"
      IMPORTED_LOCATION "${_slimpthreads_prefix}/lib/${dll}")
  else()
    # The static library waits on addresses: WaitOnAddress is in synchronization.
    add_library(slimpthreads::${target} STATIC IMPORTED)
    set_target_properties(slimpthreads::${target} PROPERTIES
      IMPORTED_LOCATION "${_slimpthreads_libdir}/lib${library}.a"
      INTERFACE_LINK_LIBRARIES synchronization)
  endif()
  # Our headers must come before MinGW-w64's own pthread_time.h and friends,
  # which <time.h> and <signal.h> include: -isystem does, as -I does.
  set_target_properties(slimpthreads::${target} PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${slimpthreads_INCLUDE_DIRS}"
    INTERFACE_COMPILE_DEFINITIONS "${definitions}")
endfunction()

_slimpthreads_target(slimpthreads slimpthreads libslimpthreads-0.dll "")
_slimpthreads_target(static slimpthreads "" "")
_slimpthreads_target(checked slimpthreads-checked libslimpthreads-checked-0.dll SLIMPTHREADS_CHECKED)
set(slimpthreads_LIBRARIES slimpthreads::slimpthreads)
