# Drop-in use: what lets existing programs take slimpthreads unchanged.
#  - `make install` also installs libpthread.a and libpthread.dll.a, so that
#    -L<prefix>/lib -lpthread (and gcc's -pthread, which adds -lpthread for
#    MinGW-w64) binds to slimpthreads instead of winpthreads;
#  - `make amalgamation` writes the drop-in (pthread.h, pthread.c, threads.h for C11, and
#    one-line sched.h, semaphore.h);
#  - `make check-integration` builds real programs (xz, zstd) against the
#    installed library and runs them under Wine next to winpthreads builds.

# ---- -lpthread aliases ----
# libpthread.dll.a is a copy of our import library (it names libslimpthreads-N.dll).
# libpthread.a is our static library plus import stubs for WaitOnAddress and
# WakeByAddress*: a build that hard-codes -lpthread and links -static cannot be
# expected to add -lsynchronization. The stubs come from dlltool rather than from
# MinGW-w64's libsynchronization.a, which would also reroute EnterCriticalSection
# and the rest of kernel32's synchronization API.
SLIM_SYNCH_STUBS = libslimpthreads_synch.a
SLIM_SYNCH_DLL = api-ms-win-core-synch-l1-2-0.dll

$(SLIM_SYNCH_STUBS):
	$(AM_V_GEN){ echo 'LIBRARY "$(SLIM_SYNCH_DLL)"'; echo EXPORTS; \
	  case '$(host_cpu)' in \
	    i?86) echo WaitOnAddress@16; echo WakeByAddressAll@4; echo WakeByAddressSingle@4 ;; \
	    *) echo WaitOnAddress; echo WakeByAddressAll; echo WakeByAddressSingle ;; \
	  esac; } >libslimpthreads_synch.def && \
	$(DLLTOOL) -k -d libslimpthreads_synch.def -l $@

libpthread.a: libslimpthreads.la $(SLIM_SYNCH_STUBS)
	$(AM_V_GEN)rm -f $@ && \
	printf 'CREATE %s\nADDLIB %s\nADDLIB %s\nSAVE\nEND\n' $@ .libs/libslimpthreads.a \
	  $(SLIM_SYNCH_STUBS) | $(AR) -M && $(RANLIB) $@

install-exec-hook: install-pthread-aliases
install-pthread-aliases:
	$(MKDIR_P) '$(DESTDIR)$(libdir)'
	if test -f .libs/libslimpthreads.a; then \
	  $(MAKE) $(AM_MAKEFLAGS) libpthread.a && \
	  $(INSTALL_DATA) libpthread.a '$(DESTDIR)$(libdir)/libpthread.a'; fi
	if test -f .libs/libslimpthreads.dll.a; then \
	  $(INSTALL_DATA) .libs/libslimpthreads.dll.a '$(DESTDIR)$(libdir)/libpthread.dll.a'; fi

uninstall-local: uninstall-pthread-aliases
uninstall-pthread-aliases:
	rm -f '$(DESTDIR)$(libdir)/libpthread.a' '$(DESTDIR)$(libdir)/libpthread.dll.a'

clean-local: clean-dropin
clean-dropin:
	rm -f libpthread.a $(SLIM_SYNCH_STUBS) libslimpthreads_synch.def
	rm -rf amalgamation

.PHONY: install-pthread-aliases uninstall-pthread-aliases clean-dropin

# ---- The two-file drop-in ----
amalgamation:
	$(AM_V_GEN)$(SHELL) $(top_srcdir)/contrib/amalgamate.sh $(top_srcdir) amalgamation
.PHONY: amalgamation

TESTS += tests/install.sh tests/amalgamation.sh
EXTRA_DIST += tests/install.sh tests/amalgamation.sh tests/dropin_prog.c \
	contrib/amalgamate.sh contrib/cmake/slimpthreads-toolchain.cmake contrib/git/README.md \
	contrib/msys2/PKGBUILD contrib/msys2/try-makepkg.sh contrib/integration/run.sh contrib/integration/winpthreads-shim.h

# ---- Real programs ----
# Not part of `make check`: it downloads Debian source packages (cached in
# ~/.cache/slimpthreads/integration) and takes minutes.
check-integration: all
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' \
	WINEPREFIX='$(abs_top_builddir)/wineprefix' \
	$(SHELL) $(top_srcdir)/contrib/integration/run.sh
.PHONY: check-integration
