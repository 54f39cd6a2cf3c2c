# Entry points of the rdma-core tdshare fork. Quick start: `make demo`, `make check`.
#
#   make               build and stage everything into build/stage (no tests)
#   make demo          what the fork does, one section per capability
#   make check         the whole test suite through CTest
#   make figures       ib_write_mt's and ib_write_breakdown's figures, from
#                      fixed emulated runs, in build/figures
#   make tree          build/src: upstream + patches/series as git commits
#   make export        patches/ rewritten from the commits in build/src
#   make series        the upstream submissions (patches/submissions), one directory
#                      each with its cover letter and numbering, in build/series
#   make check-series  every submission applies on its base and builds at every
#                      prefix, and so does the fork (slow: kept out of make check)
#   make check-hw      the series' validation kit (tdshare-check-hw) on this host's
#                      mlx5 device, or on mlx5emu without one; report in build/check-hw
#   make deb           the Debian source package in build/packages, and each
#                      suite's binary packages (DEB_SUITES, default bookworm
#                      trixie), built in a root of that suite, in
#                      build/packages/<suite>/
#   make rpm           the SRPM (and, as proof, binary RPMs) in build/packages
#   make check-packages  install each suite's .debs over the suite's own in a
#                      root of it (debootstrap), run traffic there, check
#                      the apt pin, restore the suite's packages
#   make check-arm64   cross-build the .debs for arm64 (-Werror) and run
#                      ibv_devinfo and ibv_rc_pingpong under qemu-user
#   make check-rpm     rpmlint, and the RPMs hold what the .debs and the stage hold
#   make clean         remove build/
BUILD := build
PHASE := cmake/phase.sh
CTEST_ARGS ?=

.PHONY: all deps source configure build demo check figures tree export series check-series clean
.PHONY: check-hw
.PHONY: deb deb-source rpm check-packages check-rpm check-arm64

all: build

deps:
	@$(PHASE) deps cmake/install-deps.sh

# The series is applied here, before CMake, so that a patch that does not
# apply is reported in one line rather than as a CMake error.
source:
	@$(PHASE) source cmake/prepare-source.sh $(BUILD)/src

configure: source
	@if [ ! -f $(BUILD)/build.ninja ]; then \
		$(PHASE) configure cmake -S . -B $(BUILD) -G Ninja --log-level=WARNING; fi

build: configure
	@$(PHASE) build cmake --build $(BUILD)

demo: deps build
	@$(PHASE) demo demo/demo.sh $(BUILD)

check: deps build
	@$(PHASE) test ctest --test-dir $(BUILD) --output-on-failure $(CTEST_ARGS)

# CHECK_HW_ARGS: more options, e.g. CHECK_HW_ARGS=--hardware on a lab host
CHECK_HW_ARGS ?=
check-hw: deps build
	@$(PHASE) check-hw bash -c '. $(BUILD)/env.sh && \
		tdshare-check-hw -o $(BUILD)/check-hw $(CHECK_HW_ARGS)'

figures: deps build
	@$(PHASE) figures perftest-ext/figures.sh $(BUILD)

tree: source

export:
	@cmake/export-series.sh $(BUILD)/src

series: source
	@cmake/make-series.sh $(BUILD)/src $(BUILD)/series

check-series: deps source
	@$(PHASE) check-series cmake/check-series.sh $(BUILD)/src $(BUILD)/check-series

# Packages: each list of extra build dependencies is installed like make
# check's. check-packages reuses the .debs of `make deb` when up to date.
packaging_deps = $(shell sed 's/\#.*//' packaging/deps-$(1).txt)

deb:
	@$(PHASE) deps-deb cmake/install-deps.sh $(call packaging_deps,deb)
	@$(PHASE) deb cmake/build-deb.sh $(BUILD)/packages

# the source package alone (no suite's binary packages)
deb-source:
	@$(PHASE) deps-deb cmake/install-deps.sh $(call packaging_deps,deb)
	@$(PHASE) deb-source env DEB_SUITES= cmake/build-deb.sh $(BUILD)/packages

check-arm64: deb-source
	@$(PHASE) deb-arm64 cmake/build-deb-cross.sh $(BUILD)/packages arm64
	@$(PHASE) check-arm64 tests/packaging/check-arm64.sh $(BUILD)/packages arm64

rpm:
	@$(PHASE) deps-rpm cmake/install-deps.sh $(call packaging_deps,rpm)
	@$(PHASE) rpm cmake/build-rpm.sh $(BUILD)/packages

check-packages: deb
	@$(PHASE) check-packages tests/packaging/check-packages.sh $(BUILD)/packages

check-rpm: build deb rpm
	@$(PHASE) check-rpm tests/packaging/check-rpm.sh $(BUILD)/packages $(BUILD)/stage

clean:
	rm -rf $(BUILD)
