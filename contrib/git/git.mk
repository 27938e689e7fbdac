# ---- git, for real (contrib/git/try-git.sh) ----
# Not part of `make check`: it downloads Debian's git and zlib sources, builds
# git.exe twice (git's own compat/win32/pthread.[ch], and the drop-in) and runs
# a threaded workload under Wine. Everything is cached in ~/.cache/slimpthreads/git.
# SLIM_GIT_REPS, SLIM_GIT_SIZE, SLIM_GIT_COUNT and JOBS pass through; see the
# script's header.
check-git:
	WINEPREFIX='$(abs_top_builddir)/wineprefix' \
	$(SHELL) $(top_srcdir)/contrib/git/try-git.sh
.PHONY: check-git
EXTRA_DIST += contrib/git/try-git.sh contrib/git/git.mk contrib/git/count-calls.c \
	contrib/git/git-calls.c
