# Two entry points: `make run` (set up and serve on https://127.0.0.1:8443) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8443

.PHONY: run test install bench clean upstream

$(BIN)/dra-webhook: pyproject.toml
	@$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
	  echo "make: '$(PYTHON) -m venv' failed: on Debian or Ubuntu, install the venv module first:" >&2; \
	  echo "  sudo apt-get install python3-venv" >&2; exit 1; }
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/dra-webhook

run: install
	$(BIN)/dra-webhook serve --host 127.0.0.1 --port $(PORT) --cert-dir certs

# With Go, the upstream oracles are built (or found up to date) first; CI always builds them (tests/upstream).
test: install
	@if command -v go >/dev/null 2>&1 || [ "$${CI:-}" = true ]; then UPSTREAM_ORACLE_ONLY=1 bash tests/upstream/build.sh; fi
	$(BIN)/python -m pytest -q

# Upstream's own binaries (kube-apiserver, etcd, kubectl, registry oracle, allocator) from the pinned Go modules
# under tests/upstream/, cached outside the repository keyed by tag.
upstream:
	bash tests/upstream/build.sh

bench: install
	for b in benchmarks/[!_]*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
