# Drop-in use: what lets existing programs take slimpthreads unchanged.
#  - `make install` also installs libpthread.a and libpthread.dll.a, so that
#    -L<prefix>/lib -lpthread (and gcc's -pthread, which adds -lpthread for
#    MinGW-w64) binds to slimpthreads instead of winpthreads;
#  - `make amalgamation` writes the drop-in (pthread.h, pthread.c, threads.h for C11, and
#    one-line sched.h, semaphore.h);
#  - `make check-integration` builds real programs (xz, zstd) against the
#    installed library and runs them under Wine next to winpthreads builds.

# ---- -lpthread aliases ----
# Our headers give every function a link name of its own (slimpthreads_*, see
# include/slimpthreads_abi.h), so a -lpthread alias can hold both libraries:
#   libpthread.a      our static library, import stubs for WaitOnAddress and
#                     WakeByAddress*, and the members of MinGW-w64's libwinpthread.a;
#   libpthread.dll.a  our import library (it names libslimpthreads-N.dll) and
#                     MinGW-w64's libwinpthread.dll.a.
# Code compiled against our headers asks for slimpthreads_* and gets slimpthreads;
# code compiled against winpthreads' headers (libgomp, libgcc's emutls, the
# posix-model libstdc++, header-less configure probes) asks for the plain names
# and gets winpthreads, with winpthreads' own object layouts. Neither can
# capture the other's calls. Without a libwinpthread the alias holds ours only.
# The stubs come from dlltool rather than from MinGW-w64's libsynchronization.a,
# which would also reroute EnterCriticalSection and the rest of kernel32's
# synchronization API; a build that hard-codes -lpthread and links -static
# cannot be expected to add -lsynchronization.
SLIM_SYNCH_STUBS = libslimpthreads_synch.a
SLIM_SYNCH_DLL = api-ms-win-core-synch-l1-2-0.dll

$(SLIM_SYNCH_STUBS):
	$(AM_V_GEN){ echo 'LIBRARY "$(SLIM_SYNCH_DLL)"'; echo EXPORTS; \
	  case '$(host_cpu)' in \
	    i?86) echo WaitOnAddress@16; echo WakeByAddressAll@4; echo WakeByAddressSingle@4 ;; \
	    *) echo WaitOnAddress; echo WakeByAddressAll; echo WakeByAddressSingle ;; \
	  esac; } >libslimpthreads_synch.def && \
	$(DLLTOOL) -k -d libslimpthreads_synch.def -l $@

# Prints "ADDLIB <path>" for winpthreads' library $$winpthread_library if the
# compiler finds it (-print-file-name echoes a bare name otherwise).
slim_addlib_winpthread = found=`$(CC) $(AM_CFLAGS) $(CFLAGS) $(LDFLAGS) \
	  -print-file-name=$$winpthread_library`; \
	case $$found in /*) if test -f "$$found"; then echo "ADDLIB $$found"; fi ;; esac

libpthread.a: libslimpthreads.la $(SLIM_SYNCH_STUBS)
	$(AM_V_GEN)rm -f $@ && winpthread_library=libwinpthread.a && \
	{ echo "CREATE $@"; echo "ADDLIB .libs/libslimpthreads.a"; echo "ADDLIB $(SLIM_SYNCH_STUBS)"; \
	  $(slim_addlib_winpthread); echo SAVE; echo END; } | $(AR) -M && $(RANLIB) $@

libpthread.dll.a: libslimpthreads.la
	$(AM_V_GEN)rm -f $@ && winpthread_library=libwinpthread.dll.a && \
	{ echo "CREATE $@"; echo "ADDLIB .libs/libslimpthreads.dll.a"; \
	  $(slim_addlib_winpthread); echo SAVE; echo END; } | $(AR) -M && $(RANLIB) $@

# The aliases are built with the library, so that tests/shell/abi.sh finds them.
all-local: $(slim_pthread_aliases)
slim_pthread_aliases =
if SLIM_HAVE_STATIC
slim_pthread_aliases += libpthread.a
endif
if SLIM_HAVE_SHARED
slim_pthread_aliases += libpthread.dll.a
endif

install-exec-hook: install-pthread-aliases
install-pthread-aliases:
	$(MKDIR_P) '$(DESTDIR)$(libdir)'
	for alias in $(slim_pthread_aliases); do \
	  $(INSTALL_DATA) $$alias "$(DESTDIR)$(libdir)/$$alias" || exit 1; done

# `make install prefix=/opt/x` (README.md's form) must give a .pc and a .la that
# point at /opt/x, not at configure's prefix: both are rewritten as installed.
# The .pc names its prefix relative to its own place (${pcfiledir}) when the
# layout is the default one, so that a copied or unpacked tree works as well.
install-data-hook: install-fix-paths
install-fix-paths:
	for name in slimpthreads slimpthreads-checked; do \
	pc="$(DESTDIR)$(pkgconfigdir)/$$name.pc"; \
	if test '$(libdir)' = '$(prefix)/lib' && test '$(includedir)' = '$(prefix)/include' && \
	  test '$(pkgconfigdir)' = '$(prefix)/lib/pkgconfig'; then \
	  pc_prefix='$${pcfiledir}/../..'; pc_libdir='$${prefix}/lib'; pc_includedir='$${prefix}/include'; \
	else pc_prefix='$(prefix)'; pc_libdir='$(libdir)'; pc_includedir='$(includedir)'; fi; \
	sed -e "s|^prefix=.*|prefix=$$pc_prefix|" -e "s|^exec_prefix=.*|exec_prefix=\$${prefix}|" \
	  -e "s|^libdir=.*|libdir=$$pc_libdir|" -e "s|^includedir=.*|includedir=$$pc_includedir|" \
	  "$$pc" >"$$pc.tmp" && mv "$$pc.tmp" "$$pc" || exit 1; \
	la="$(DESTDIR)$(libdir)/lib$$name.la"; \
	if test -f "$$la"; then \
	  sed "s|^libdir=.*|libdir='$(libdir)'|" "$$la" >"$$la.tmp" && mv "$$la.tmp" "$$la"; fi; \
	done
.PHONY: install-fix-paths

uninstall-local: uninstall-pthread-aliases
uninstall-pthread-aliases:
	rm -f '$(DESTDIR)$(libdir)/libpthread.a' '$(DESTDIR)$(libdir)/libpthread.dll.a'

clean-local: clean-dropin
clean-dropin:
	rm -f libpthread.a libpthread.dll.a $(SLIM_SYNCH_STUBS) libslimpthreads_synch.def
	rm -rf amalgamation

.PHONY: install-pthread-aliases uninstall-pthread-aliases clean-dropin

# ---- The two-file drop-in ----
amalgamation:
	$(AM_V_GEN)$(SHELL) $(top_srcdir)/contrib/amalgamate.sh $(top_srcdir) amalgamation
.PHONY: amalgamation

# ---- The tarball holds every file README.md names ----
# A path README.md mentions that exists in the source tree must be in the
# tarball too, or `make dist` fails and names it.
EXTRA_DIST += bench/integration-results.md
dist-hook: dist-check-readme-files
dist-check-readme-files:
	@missing=; \
	for file in `grep -oE '[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+[.](md|sh|cmake|h|c|in|mk)|COPYING|PKGBUILD' \
	    '$(srcdir)/README.md' | sed 's|^[.]/||' | sort -u`; do \
	  if test -f "$(srcdir)/$$file" && test ! -f "$(distdir)/$$file"; then missing="$$missing $$file"; fi; \
	done; \
	if test -n "$$missing"; then echo "dist: README.md names files the tarball lacks:$$missing" >&2; exit 1; fi
.PHONY: dist-check-readme-files

TESTS += tests/shell/install.sh tests/shell/amalgamation.sh
EXTRA_DIST += tests/shell/install.sh tests/shell/amalgamation.sh tests/fixtures/dropin_prog.c \
	contrib/amalgamate.sh contrib/cmake/slimpthreads-toolchain.cmake contrib/git/README.md \
	contrib/msys2/PKGBUILD contrib/msys2/try-makepkg.sh contrib/integration/run.sh contrib/integration/winpthreads-shim.h \
	contrib/integration/lock-order-canary.c contrib/integration/run-aarch64.sh contrib/checked-verdict.sh

# ---- Real programs ----
# Not part of `make check`: it downloads Debian source packages (cached in
# ~/.cache/slimpthreads/integration) and takes minutes.
check-integration: all
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' \
	WINEPREFIX='$(abs_top_builddir)/wineprefix' \
	$(SHELL) $(top_srcdir)/contrib/integration/run.sh
.PHONY: check-integration
