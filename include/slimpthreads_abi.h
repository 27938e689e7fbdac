/*
 * slimpthreads_abi.h - slimpthreads: the link names of the public functions,
 * and the attributes their declarations carry, each spelled once here.
 *
 * Users need not read this file: it is machinery every public header includes
 * first, installed, and says nothing about what a call does.
 *
 * Every function our headers declare carries an assembler name of its own:
 *     int pthread_mutex_lock(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(pthread_mutex_lock);
 * makes the object file call "slimpthreads_pthread_mutex_lock" (with i686's
 * leading underscore, __USER_LABEL_PREFIX__), and the library, compiled with
 * these headers, defines exactly those names. So code compiled against another
 * <pthread.h> (winpthreads': 8-byte objects) can never bind to our functions, and
 * code compiled against ours can never bind to winpthreads': a mismatch is a
 * link error ("undefined reference to slimpthreads_pthread_create"), not a
 * program that overwrites memory. Both can live in one program, each calling
 * its own library on its own objects (libgomp and libgcc's emutls keep
 * winpthreads). GCC and clang honour the label for MinGW-w64 targets, in C and
 * in C++ (extern "C" declarations); &pthread_create is the address of our
 * function as usual.
 */
#ifndef SLIMPTHREADS_ABI_H
#define SLIMPTHREADS_ABI_H

/* The checked build (-DSLIMPTHREADS_CHECKED, libslimpthreads-checked: README.md,
 * Checked build) links by names of its own, so that an object compiled for
 * one build and the library of the other never link ("undefined reference to
 * slimpthreads_checked_pthread_mutex_lock"), and every lock call reaches the
 * library, where the checks are: nothing is inlined. */
#if defined(SLIMPTHREADS_CHECKED)
#ifndef SLIMPTHREADS_LINK_PREFIX
#define SLIMPTHREADS_LINK_PREFIX slimpthreads_checked_
#endif
#ifndef SLIMPTHREADS_NO_INLINE
#define SLIMPTHREADS_NO_INLINE 1
#endif
#endif

/* The installed library is always slimpthreads_*. A vendored copy (the
 * amalgamation) sets a prefix of its own before this, with its version in it,
 * and a project may give its copy a private one: see README.md, Vendoring. */
#ifndef SLIMPTHREADS_LINK_PREFIX
#define SLIMPTHREADS_LINK_PREFIX slimpthreads_
#endif

#define __SLIM_STRINGIFY(text) #text
#define __SLIM_LINK_NAME(label_prefix, link_prefix, name) \
    __SLIM_STRINGIFY(label_prefix) __SLIM_STRINGIFY(link_prefix) #name
#define SLIMPTHREADS_ABI(name) \
    __asm__(__SLIM_LINK_NAME(__USER_LABEL_PREFIX__, SLIMPTHREADS_LINK_PREFIX, name))

/* The attributes of our declarations and definitions, in one place for every
 * header and object. GCC and clang (the only compilers whose asm labels the
 * headers rely on) take them in every C and C++ mode, -pedantic included.
 *   __SLIM_NORETURN        a call that never returns (pthread_exit, thrd_exit)
 *   __SLIM_CONST           a call whose result depends on its arguments and the
 *                          calling thread alone, so that the compiler may call it
 *                          once for several uses (pthread_self and pthread_equal,
 *                          as glibc declares them)
 *   __SLIM_ALIGNED(bytes)  a field's alignment where i686 would give less
 *                          (pthread_rwlock_t's 64-bit word, exchanged whole)
 *   __SLIM_GNU_INLINE      a public call's inline body: used only to inline,
 *                          every other use (its address, -O0) is the library's
 *                          function of the same link name
 *   __SLIM_INLINE_HELPER   a helper of those bodies, only ever inlined (even
 *                          at -O0): a GNU inline function may not call a
 *                          static one, and these never need a definition */
#define __SLIM_NORETURN __attribute__((__noreturn__))
#define __SLIM_CONST __attribute__((__const__))
#define __SLIM_ALIGNED(bytes) __attribute__((__aligned__(bytes)))
#define __SLIM_GNU_INLINE extern __inline__ __attribute__((__gnu_inline__))
#define __SLIM_INLINE_HELPER extern __inline__ __attribute__((__gnu_inline__, __always_inline__))

/* A libstdc++ built for the posix thread model (MSYS2's GCC, Debian's -posix
 * compilers) implements std::mutex, std::thread and std::condition_variable on
 * winpthreads: its headers include <pthread.h> (gthr-posix.h) and would size
 * std::mutex with our pthread_mutex_t while the compiled library works on
 * winpthreads' 8-byte one. Such a C++ program cannot use slimpthreads' headers.
 * <cstddef> brings in <bits/c++config.h>, which says how libstdc++ was built:
 * of GCC 12's two models only the posix one defines _GLIBCXX_HAS_GTHREADS and
 * _GLIBCXX_USE_PTHREAD_RWLOCK_T. GCC 13's win32 model has gthreads too, but
 * (not checked here: Debian 12 has GCC 12) should not use pthread_rwlock_t. */
#if defined(__cplusplus)
#if defined(__has_include)
#if __has_include(<cstddef>)
#include <cstddef>
#endif
#else
#include <cstddef>
#endif
#if defined(_GLIBCXX_GCC_GTHR_POSIX_H) || \
    (defined(_GLIBCXX_HAS_GTHREADS) && defined(_GLIBCXX_USE_PTHREAD_RWLOCK_T))
#error "slimpthreads: this C++ compiler's libstdc++ uses winpthreads (posix thread model); its std::mutex/std::thread cannot share pthread objects with slimpthreads. Compile C++ with the win32 thread-model compiler (Debian: x86_64-w64-mingw32-g++-win32; GCC 13+ has std::thread there), or leave slimpthreads' include/ off this file's include path (C files may still use it)."
#endif
#endif

#endif /* SLIMPTHREADS_ABI_H */
