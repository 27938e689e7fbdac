# CMake toolchain file: build for Windows with MinGW-w64 and take POSIX threads
# from an installed slimpthreads instead of winpthreads.
#
#   cmake -S . -B build \
#         -DCMAKE_TOOLCHAIN_FILE=<slimpthreads>/contrib/cmake/slimpthreads-toolchain.cmake \
#         -DSLIMPTHREADS_PREFIX=/opt/slimpthreads \
#         [-DSLIMPTHREADS_HOST=i686-w64-mingw32]   # default x86_64-w64-mingw32
#
# Our include/ goes first on every compile line and our lib/ first on every link
# line, including the test programs CMake's checks build. So <pthread.h>,
# <time.h>'s clock_gettime and <signal.h>'s pthread_sigmask are ours, and
# find_package(Threads) settles on -lpthread (or -pthread), which resolves to
# the libpthread.dll.a / libpthread.a that `make install` puts next to
# libslimpthreads. Threads::Threads then means slimpthreads.
#
# Linking is dynamic by default: ship <prefix>/bin/libslimpthreads-0.dll with the
# program, or add -static to CMAKE_EXE_LINKER_FLAGS for a self-contained .exe.
# Run natively on Windows (MSYS2), the file only adds the slimpthreads paths and
# leaves the compilers to the environment.

# try_compile projects read this file again; hand them the settings too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SLIMPTHREADS_PREFIX SLIMPTHREADS_HOST)

if(NOT SLIMPTHREADS_PREFIX AND DEFINED ENV{SLIMPTHREADS_PREFIX})
  set(SLIMPTHREADS_PREFIX "$ENV{SLIMPTHREADS_PREFIX}")
endif()
if(NOT SLIMPTHREADS_PREFIX)
  message(FATAL_ERROR "slimpthreads: set SLIMPTHREADS_PREFIX to where slimpthreads is installed "
                      "(cmake -DSLIMPTHREADS_PREFIX=/opt/slimpthreads ...)")
endif()
if(NOT EXISTS "${SLIMPTHREADS_PREFIX}/include/pthread.h")
  message(FATAL_ERROR "slimpthreads: no include/pthread.h under ${SLIMPTHREADS_PREFIX}")
endif()
if(NOT SLIMPTHREADS_HOST)
  set(SLIMPTHREADS_HOST x86_64-w64-mingw32)
endif()

if(NOT CMAKE_HOST_WIN32)
  set(CMAKE_SYSTEM_NAME Windows)
  string(REGEX REPLACE "-.*" "" CMAKE_SYSTEM_PROCESSOR "${SLIMPTHREADS_HOST}")
  set(CMAKE_C_COMPILER ${SLIMPTHREADS_HOST}-gcc)
  set(CMAKE_CXX_COMPILER ${SLIMPTHREADS_HOST}-g++)
  set(CMAKE_RC_COMPILER ${SLIMPTHREADS_HOST}-windres)
  set(CMAKE_FIND_ROOT_PATH "${SLIMPTHREADS_PREFIX}" /usr/${SLIMPTHREADS_HOST})
  set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
  set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
  set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
  set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
endif()

# Flags rather than include_directories(): a toolchain file cannot add those,
# and the *_INIT flags also reach the try_compile checks of FindThreads. CMake
# may read this file more than once: add each flag only once.
macro(_slimpthreads_add_flag variable flag)
  string(FIND " ${${variable}} " " ${flag} " _slimpthreads_at)
  if(_slimpthreads_at EQUAL -1)
    string(APPEND ${variable} " ${flag}")
  endif()
endmacro()
foreach(lang C CXX)
  _slimpthreads_add_flag(CMAKE_${lang}_FLAGS_INIT "-I${SLIMPTHREADS_PREFIX}/include")
endforeach()
foreach(kind EXE SHARED MODULE)
  _slimpthreads_add_flag(CMAKE_${kind}_LINKER_FLAGS_INIT "-L${SLIMPTHREADS_PREFIX}/lib")
endforeach()
# The *_INIT flags only seed CMAKE_C_FLAGS and the linker flags: a user's own
# -DCMAKE_C_FLAGS=-O2 or -DCMAKE_EXE_LINKER_FLAGS=-static would replace them.
# A value the user gave is kept and our flag added to it in the cache, which
# also carries it into the try_compile checks.
macro(_slimpthreads_add_to_user_flags variable flag)
  if(DEFINED CACHE{${variable}})
    string(FIND " ${${variable}} " " ${flag} " _slimpthreads_at)
    if(_slimpthreads_at EQUAL -1)
      get_property(_slimpthreads_help CACHE ${variable} PROPERTY HELPSTRING)
      set(${variable} "${${variable}} ${flag}" CACHE STRING "${_slimpthreads_help}" FORCE)
    endif()
  endif()
endmacro()
foreach(lang C CXX)
  _slimpthreads_add_to_user_flags(CMAKE_${lang}_FLAGS "-I${SLIMPTHREADS_PREFIX}/include")
endforeach()
foreach(kind EXE SHARED MODULE)
  _slimpthreads_add_to_user_flags(CMAKE_${kind}_LINKER_FLAGS "-L${SLIMPTHREADS_PREFIX}/lib")
endforeach()
if(NOT "${SLIMPTHREADS_PREFIX}" IN_LIST CMAKE_PREFIX_PATH)
  list(APPEND CMAKE_PREFIX_PATH "${SLIMPTHREADS_PREFIX}")
endif()
