# The two commands of the README:
#   make demo  — installs what is missing, builds, runs the main job on the bundled inputs
#   make test  — installs what is missing, builds from scratch and runs every test:
#                unit + CLI + peer tests (release, warnings as errors), the CPU tests
#                under ASan+UBSan, the task-array and threaded CPU tests under TSan, the
#                fuzz-corpus replay, an install + find_package check, and the Python
#                package built by pip (CPU backends) and tested with pytest.
# Both work on a fresh Debian 12 machine (scripts/deps.sh installs the rest).
JOBS ?= $(shell nproc)
PYTHON := $(shell test -x .venv/bin/python && echo $(CURDIR)/.venv/bin/python || command -v python3)

.PHONY: all deps build demo test test-main test-asan test-tsan test-fuzz test-install test-python clean

all: build

deps:
	@scripts/deps.sh

build: deps
	@cmake --preset release -DPython3_EXECUTABLE=$(PYTHON) >/dev/null
	@cmake --build --preset release -j $(JOBS)

demo: build
	@build/release/tools/skss/skss demo --out out

test: deps test-main test-asan test-tsan test-fuzz test-install test-python
	@echo "make test: all suites passed"

test-main:
	@cmake --preset ci -DPython3_EXECUTABLE=$(PYTHON) >/dev/null
	@cmake --build --preset ci -j $(JOBS)
	@ctest --preset ci -j $(JOBS)

test-asan:
	@cmake --preset asan -DPython3_EXECUTABLE=$(PYTHON) >/dev/null
	@cmake --build --preset asan -j $(JOBS)
	@ctest --preset asan -j $(JOBS)

test-tsan:
	@cmake --preset tsan -DPython3_EXECUTABLE=$(PYTHON) >/dev/null
	@cmake --build --preset tsan -j $(JOBS)
	@ctest --preset tsan -j $(JOBS)

test-fuzz:
	@mkdir -p build
	@scripts/fuzz-replay.sh 10 > build/fuzz.log 2>&1 || (tail -n 60 build/fuzz.log; exit 1)
	@tail -n 1 build/fuzz.log

test-install:
	@scripts/install-check.sh

# `pip install .` into a scratch folder (the CPU backends: CI has no GPU),
# then the package's tests against NumPy, OpenCV, Pillow and OR-Tools.
test-python:
	@rm -rf build/python-site
	@$(PYTHON) -m pip install --quiet --disable-pip-version-check --no-build-isolation \
	  --target build/python-site -C cmake.define.SKSS_CUDA=OFF -C build-dir=build/python-build .
	@PYTHONPATH=$(CURDIR)/build/python-site $(PYTHON) -m pytest -q -p no:cacheprovider python/tests

clean:
	rm -rf build out
