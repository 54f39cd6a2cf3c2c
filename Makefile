# Entry points of the rdma-core tdshare fork. Quick start: `make demo`, `make check`.
#
#   make               build and stage everything into build/stage (no tests)
#   make demo          what the fork does, one section per capability
#   make check         the whole test suite through CTest
#   make tree          build/src: upstream + patches/series as git commits
#   make export        patches/ rewritten from the commits in build/src
#   make series        the upstream submission (numbered patches + cover letter) in build/series
#   make check-series  every prefix of the series builds (slow: kept out of make check)
#   make clean         remove build/
BUILD := build
PHASE := cmake/phase.sh
CTEST_ARGS ?=

.PHONY: all deps source configure build demo check tree export series check-series clean

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

tree: source

export:
	@cmake/export-series.sh $(BUILD)/src

series: source
	@cmake/make-series.sh $(BUILD)/src $(BUILD)/series

check-series: deps source
	@$(PHASE) check-series cmake/check-series.sh $(BUILD)/src $(BUILD)/check-series

clean:
	rm -rf $(BUILD)
