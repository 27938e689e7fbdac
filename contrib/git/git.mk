# ---- git, for real (contrib/git/try-git.sh) ----
# Not part of `make check`: it downloads Debian's git and zlib sources, builds
# git.exe twice (git's own compat/win32/pthread.[ch], and the drop-in) and runs
# a threaded workload under Wine. Everything is cached in ~/.cache/slimpthreads/git.
# SLIM_GIT_REPS, SLIM_GIT_SIZE, SLIM_GIT_COUNT and JOBS pass through; see the
# script's header.
check-git:
	WINEPREFIX='$(abs_top_builddir)/wineprefix' \
	$(SHELL) $(top_srcdir)/contrib/git/try-git.sh
# git built with the checked library (README.md, Checked build), every step run
# once with SLIMPTHREADS_CHECK_FILE set: passes with no report. Installs this
# build tree into ~/.cache/slimpthreads/git/prefix first.
check-git-checked: all
	WINEPREFIX='$(abs_top_builddir)/wineprefix' top_builddir='$(abs_top_builddir)' SLIM_GIT_CHECKED=1 \
	$(SHELL) $(top_srcdir)/contrib/git/try-git.sh
.PHONY: check-git check-git-checked
EXTRA_DIST += contrib/git/try-git.sh contrib/git/git.mk contrib/git/count-calls.c \
	contrib/git/git-calls.c
